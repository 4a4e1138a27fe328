#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The engine on a GPU, in one prepared run (docs/GPU.md): builds trainbench on
# the GPU machine against its own CUDA LibTorch (the `gpu` preset: no -dev
# packages needed; the header-only libraries and gloo's headers come from
# tests/gpu/prepare-deps.sh, carried with the working tree), then runs every
# check, each under its own time limit, and writes what it saw to OUT:
#
#   steps.tsv       one line per step: name, exit code, seconds
#   <step>.log      each step's output; <step>.json where it prints JSON
#   summary.json    the figures (tokens/s, MFU, memory errors), summary.md
#
# Usage: tests/gpu/run-on-gpu.sh OUT
# Environment: TB_GPU_DEPS (default build/gpu-deps), TB_GPU_BUILD (default
# build/gpu), TB_TORCH_PYTHON (default python3), TB_GPU_BUDGET_S (default
# 480: the whole run; later steps are skipped, and say so, once it is spent).
# Exit codes: 0 every step passed, 1 a step failed (the others still ran
# where they could), 2 bad usage. Without CUDA it stops after the configure,
# saying which LibTorch it found and that it has no CUDA.
set -uo pipefail

if [[ $# -ne 1 || $1 == -* ]]; then
  echo "usage: tests/gpu/run-on-gpu.sh OUT" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "run-on-gpu.sh: cannot create $1" >&2; exit 2; }
deps=${TB_GPU_DEPS:-$root/build/gpu-deps}
build=${TB_GPU_BUILD:-$root/build/gpu}
python=${TB_TORCH_PYTHON:-python3}
budget=${TB_GPU_BUDGET_S:-480}
started=$SECONDS
failed=0
: > "$out/steps.tsv"

# step NAME LIMIT_S COMMAND...: runs it with its output in NAME.log, bounded
# by its own limit and by what is left of the budget.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((budget - (SECONDS - started)))
  if ((left < 10)); then
    printf '%s\tskipped\t0\n' "$name" >> "$out/steps.tsv"
    echo "run-on-gpu.sh: $name skipped: the ${budget} s budget is spent" | tee -a "$out/$name.log" >&2
    failed=1
    return 1
  fi
  ((limit > left)) && limit=$left
  local begin=$SECONDS
  timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - begin))" >> "$out/steps.tsv"
  if ((rc != 0)); then
    failed=1
    local why="exit $rc"
    ((rc == 124 || rc == 137)) && why="no end within ${limit} s"
    echo "run-on-gpu.sh: $name failed ($why); the last lines of $out/$name.log:" >&2
    tail -n 5 "$out/$name.log" >&2
  fi
  return $rc
}

[[ -d $deps/include/nlohmann ]] || {
  echo "run-on-gpu.sh: $deps has no header set; run tests/gpu/prepare-deps.sh where the packages are" >&2
  exit 2
}

# NCCL: the toolkit's, else the nvidia-nccl wheel beside pip's torch.
nccl_root=$("$python" -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null ||
            "$python" -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || true)
cd "$root" || exit 2  # cmake --preset reads the CMakePresets.json of the working directory
configure=(cmake --preset gpu -S "$root" -B "$build" -DCMAKE_PREFIX_PATH="$deps"
           -DTB_GLOO_INCLUDE_DIR="$deps/include" -DTB_TORCH_PYTHON="$python")
[[ -n $nccl_root ]] && configure+=(-DTB_NCCL_ROOT="$nccl_root")
if ! step configure 120 "${configure[@]}"; then
  grep -A4 "CMake Error" "$out/configure.log" >&2
  exit 1
fi
step gpu 20 nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
step build 300 cmake --build "$build" -j "$(nproc)" --target trainbench || exit 1
tb=$build/bin/trainbench

# The ~1B Llama-shaped model (docs/GPU.md), and a short run of it.
model=(--vocab 32000 --dim 2048 --layers 16 --heads 16 --kv-heads 8 --ffn 5632 --seq 2048 --batch 4)
json_step() {  # json_step NAME LIMIT COMMAND...: keeps stdout's JSON as NAME.json
  local name=$1
  step "$@"
  local rc=$?
  sed -n '/^{/,$p' "$out/$name.log" > "$out/$name.json"
  return $rc
}
json_step smoke 60 "$tb" run --device cuda --model tiny --steps 10 --json
json_step nccl 60 "$tb" run --device cuda --model tiny --steps 5 --nproc-per-node 1 --master-port 0 --json
json_step engine_eager 90 "$tb" run --device cuda "${model[@]}" --steps 12 --json
json_step engine_compiled 90 "$tb" run --device cuda "${model[@]}" --steps 12 --compile on --json
for policy in none selective full layers:8; do
  name=memory_${policy/:/_}
  json_step "${name}_run" 60 "$tb" run --device cuda "${model[@]}" --steps 3 --recompute "$policy" --json
  json_step "${name}_predicted" 20 "$tb" memory "${model[@]}" --profile engine --recompute "$policy" --json
done
json_step ablation 150 "$tb" benchmark --device cuda "${model[@]}" --ablation --repeats 1 --steps 8 \
  --out "$out/ablation-run" --json
json_step torch_reference 150 "$python" "$root/tests/gpu/torch_reference.py" "${model[@]}" --steps 12
step summary 30 "$python" "$root/tests/gpu/summarize.py" "$out"
cat "$out/summary.md" 2>/dev/null
echo "run-on-gpu.sh: $((SECONDS - started)) s; steps in $out/steps.tsv"
exit $failed
