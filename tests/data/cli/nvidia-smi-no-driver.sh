#!/bin/sh
# Fake nvidia-smi for the CLI tests: nvidia-smi installed but no kernel
# module loaded, which prints this message and exits 9.
if [ -n "${TB_FAKE_SMI_LOG:-}" ]; then echo "$*" >> "$TB_FAKE_SMI_LOG"; fi
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." \
  "Make sure that the latest NVIDIA driver is installed and running."
exit 9
