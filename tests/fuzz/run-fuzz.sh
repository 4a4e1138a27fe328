#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang with AddressSanitizer,
# LeakSanitizer and UBSan) and runs each from its seeds and dictionary
# (tests/fuzz/targets.txt) for SECONDS, one after another. Prints a table per
# target (executions, coverage, corpus, findings) and writes it to
# build/fuzz/summary.md. Exits 1 when any target crashed, leaked or timed out;
# the input that did is kept under build/fuzz/findings/NAME/ (replay it with
# build/fuzz/bin/fuzz_NAME FILE, then add it to tests/fuzz/regressions/NAME/
# named after what it found).
#
# Usage: tests/fuzz/run-fuzz.sh [SECONDS|runs:N] [NAME...]   (default 600 s, every target)
# FUZZ_JOBS=K runs K targets at a time (default 1): the long run is 37 targets
# x 10 minutes, about 6 hours one at a time, 3 on two cores.
# runs:N runs N inputs per target from seed 1 instead, which is how CI runs
# it (.ci/run): repeatable on one machine, though another machine's run can
# take a different path (it found an input here that a local run had not).
set -euo pipefail
cd "$(dirname "$0")/../.."

budget=${1:-600}
(($# > 0)) && shift
mapfile -t listed < <(grep -E '^[a-z]' tests/fuzz/targets.txt | awk '{print $1}')
targets=("$@")
((${#targets[@]})) || targets=("${listed[@]}")

mkdir -p build
cmake --preset fuzz > build/fuzz-configure.log 2>&1 || { cat build/fuzz-configure.log; exit 2; }
cmake --build build/fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

out=build/fuzz
mkdir -p "$out/findings"
summary="$out/summary.md"
{
  echo "| target | budget | executions | exec/s | coverage (edges) | corpus | findings |"
  echo "|---|---|---|---|---|---|---|"
} > "$summary"

# One target: fuzz it, write its summary row to $out/rows/NAME, and return
# non-zero when it crashed, leaked or timed out.
fuzz_target() {
  local name=$1 line dict globs corpus log status=0
  line=$(grep -E "^$name[[:space:]]" tests/fuzz/targets.txt) || { echo "unknown target $name" >&2; return 2; }
  read -r _ dict globs <<< "$line"
  corpus="$out/corpus/$name"
  # A runs:N budget starts from the seeds alone, so that it is repeatable.
  [[ $budget == runs:* ]] && rm -rf "$corpus" "$out/findings/$name"
  mkdir -p "$corpus" "$out/findings/$name"
  # An earlier run's findings stay for replaying; only this run's count.
  local started="$out/findings/.started-$name"
  : > "$started"
  shopt -s nullglob
  for glob in $globs; do
    for seed in $glob; do [[ -f $seed ]] && cp -- "$seed" "$corpus/"; done
  done
  [[ -d tests/fuzz/regressions/$name ]] && cp -- tests/fuzz/regressions/"$name"/* "$corpus/" 2>/dev/null || true
  shopt -u nullglob
  local args=(-timeout=5 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/findings/$name/")
  if [[ $budget == runs:* ]]; then
    args+=(-runs="${budget#runs:}" -seed=1)
  else
    args+=(-max_total_time="$budget")
  fi
  [[ $dict != - ]] && args+=(-dict="tests/fuzz/dict/$dict")
  log="$out/$name.log"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$out/bin/fuzz_$name" "${args[@]}" "$corpus" > "$log" 2>&1 || status=$?
  # libFuzzer's final statistics (-print_final_stats) and its last cov: line.
  stat() { { grep -oE "$1: *[0-9]+" "$log" || true; } | awk '{print $NF}' | tail -1; }
  local executions rate coverage entries found
  executions=$(stat 'stat::number_of_executed_units')
  rate=$(stat 'stat::average_exec_per_sec')
  coverage=$(stat ' cov')
  entries=$(find "$corpus" -type f | wc -l)
  found=$(find "$out/findings/$name" -maxdepth 1 -type f -newer "$started" | wc -l)
  echo "| $name | $budget | ${executions:-?} | ${rate:-?} | ${coverage:-?} | $entries | $found |" > "$out/rows/$name"
  if ((status != 0 || found > 0)); then
    echo "fuzz_$name: exit $status, $found finding(s); see $log" >&2
    grep -E 'ERROR|SUMMARY|timeout|leak' "$log" | head -5 >&2 || true
    return 1
  fi
}

rm -rf "$out/rows" && mkdir -p "$out/rows"
jobs=${FUZZ_JOBS:-1}
failed=0
running=0
for name in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_target "$name" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
for name in "${targets[@]}"; do
  cat "$out/rows/$name" 2>/dev/null >> "$summary" || echo "| $name | $budget | no result |||||" >> "$summary"
done
cat "$summary"
exit "$failed"
