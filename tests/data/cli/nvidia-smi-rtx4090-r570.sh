#!/bin/sh
# Fake nvidia-smi for the CLI tests: a workstation with one GeForce RTX 4090
# (a consumer GPU, so no CUDA forward compatibility) on driver 570.133.07.
if [ -n "${TB_FAKE_SMI_LOG:-}" ]; then echo "$*" >> "$TB_FAKE_SMI_LOG"; fi
echo "570.133.07, NVIDIA GeForce RTX 4090, 1"
