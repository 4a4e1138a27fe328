#!/usr/bin/env bash
# ThreadSanitizer over the code that runs threads: the training engine (ATen's
# OpenMP pool under the fused kernels, Gloo's worker threads, data-parallel
# ranks as threads, the NCCL watchdog's shape in the communicator), the
# benchmark runner, the registry client (curl in a worker, cancellation) and
# the Studio's workers (BackgroundTask on Qt's thread pool, child processes,
# the pages that use them). A third build beside the ci preset's ASan/UBSan
# one and the fuzz preset: the `tsan` preset, on demand (docs/RELIABILITY.md).
#
# Only the executables below are built; CTest's entries for the others are
# placeholders ("_NOT_BUILT"), which the tsan test preset leaves out. Every
# child those tests start (`trainbench run`, `trainbench benchmark`) is the
# same instrumented build, so a race in a child fails its test too.
# Suppressions: tests/sanitizers/tsan.supp, third-party code only, each with
# why. Exit status: ctest's (0 when every test passed with no report).
#
# Usage: tests/sanitizers/run-tsan.sh [ctest arguments...]   (as root or not)
set -euo pipefail
cd "$(dirname "$0")/../.."

targets=(
  # engine
  test_engine test_engine_parity test_recompute test_runtime
  test_fused_attention_head test_compiled_step test_run_command test_data_parallel
  # bench
  test_bench test_bench_runner
  # registry
  test_registry
  # the Studio's workers and the pages that start them
  test_ui_background_task test_ui_child_process test_ui_runs_page
  test_ui_registry_panel test_ui_memory_page test_ui_ablation_page
)

cmake --preset tsan > /dev/null
cmake --build build/tsan -j"$(nproc)" --target "${targets[@]}"
# TSan's report on a race is its exit code 66 at the end of the process, so a
# test whose process raced fails with the report in its output.
ctest --preset tsan "$@"
