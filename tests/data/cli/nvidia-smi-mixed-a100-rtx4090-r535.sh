#!/bin/sh
# Fake nvidia-smi for the CLI tests: a mixed host, one A100 (data-center) and
# one GeForce RTX 4090 (consumer) on driver 535.104.05. Forward compatibility
# covers the A100 only, so the host as a whole must not be judged by it.
if [ -n "${TB_FAKE_SMI_LOG:-}" ]; then echo "$*" >> "$TB_FAKE_SMI_LOG"; fi
echo "535.104.05, NVIDIA A100-SXM4-80GB, 2"
echo "535.104.05, NVIDIA GeForce RTX 4090, 2"
