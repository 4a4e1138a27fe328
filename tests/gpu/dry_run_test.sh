#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What a CPU machine can show of run-on-gpu.sh: with Debian's LibTorch (no
# CUDA) it configures the gpu preset and stops there, exit 1, naming the
# LibTorch it found; and summarize.py, fed real CPU runs of this build's
# trainbench in the files the GPU steps write, reports the memory error it
# computes from them.
# Usage: dry_run_test.sh TRAINBENCH
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
trainbench=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$root/tests/gpu/prepare-deps.sh" "$work/deps" > /dev/null
set +e
TB_GPU_DEPS=$work/deps TB_GPU_BUILD=$work/build "$root/tests/gpu/run-on-gpu.sh" "$work/out" 2> "$work/stderr"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "run-on-gpu.sh exited $rc, expected 1; stderr: $(cat "$work/stderr")"
# CMake wraps its messages: compare with the lines joined.
tr -s ' \n' '  ' < "$work/stderr" | grep -q "TB_REQUIRE_CUDA_TORCH: LibTorch [0-9.]* from [^ ]* has no CUDA" ||
  fail "no clear no-CUDA message on stderr: $(cat "$work/stderr")"
grep -q $'^configure\t1\t' "$work/out/steps.tsv" || fail "steps.tsv: $(cat "$work/out/steps.tsv")"
[[ $(wc -l < "$work/out/steps.tsv") -eq 1 ]] || fail "steps ran past the failed configure"
grep -q "oneDNN not found: the engine's matrix products run on ATen alone" "$work/out/configure.log" ||
  fail "the gpu preset did not configure the engine without oneDNN"

# summarize.py on real (CPU) runs, under the names run-on-gpu.sh gives them.
out=$work/summary
mkdir -p "$out"
model=(--model tiny --steps 3)
"$trainbench" run "${model[@]}" --run-dir "$work/run-none" --json > "$out/memory_none_run.json"
"$trainbench" memory --model tiny --profile engine --json > "$out/memory_none_predicted.json"
python3 "$root/tests/gpu/summarize.py" "$out"
python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1] + "/summary.json"))
run = json.load(open(sys.argv[1] + "/memory_none_run.json"))
predicted = json.load(open(sys.argv[1] + "/memory_none_predicted.json"))
row = doc["memory"][0]
expected = (predicted["total_bytes"] - run["peak_bytes"]) / run["peak_bytes"]
assert row["policy"] == "none" and abs(row["error"] - expected) < 1e-12, row
assert abs(doc["memory_error"]["median"] - abs(expected)) < 1e-12, doc["memory_error"]
for name in ("smoke", "engine_eager", "memory_full", "ablation"):
    assert name in doc["missing"], (name, doc["missing"])
assert "| none |" in open(sys.argv[1] + "/summary.md").read()
PY
echo "dry run: configure stopped at no CUDA; summary of a real CPU run checked"
