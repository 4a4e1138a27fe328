#!/bin/sh
# Fake nvidia-smi for the CLI tests: a host with eight H100s on driver
# 535.104.05, answering the query host detection makes, in the real format of
# `nvidia-smi --query-gpu=driver_version,name,count --format=csv,noheader`.
# Each call is appended to $TB_FAKE_SMI_LOG when set, so tests can tell
# whether detection ran.
if [ -n "${TB_FAKE_SMI_LOG:-}" ]; then echo "$*" >> "$TB_FAKE_SMI_LOG"; fi
for _ in 1 2 3 4 5 6 7 8; do
  echo "535.104.05, NVIDIA H100 80GB HBM3, 8"
done
