#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (the `fuzzers` target of the `asan` preset's tree: the same clang
# ASan+UBSan build the sanitizer tests run in, so CI compiles the core once for both) and runs each
# for a bounded time on its seed corpus.
# Fails on any crash, leak or sanitizer report. Usage: fuzz/run-fuzzers.sh [SECONDS_PER_TARGET]
# With SHARDSCOPE_FUZZ_TOTAL_SECONDS set, that total is shared evenly by the targets instead (at
# least 10 s each), so adding a target does not lengthen CI.
#
# Runs are reproducible: a fixed seed (SHARDSCOPE_FUZZ_SEED, default 1) and a fresh working corpus
# each time, so a slower machine explores a prefix of the same input sequence rather than a
# different one, and whatever CI could find, the same command finds here first.
# SHARDSCOPE_FUZZ_KEEP=1 keeps the grown corpus between runs (for long local hunts).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
tree=build/asan
cmake --preset asan >/dev/null
cmake --build --preset asan --target fuzzers -j "${SHARDSCOPE_BUILD_JOBS:-2}"
out=$tree/fuzz-runs
mkdir -p $out/findings
if [ -n "${SHARDSCOPE_FUZZ_TOTAL_SECONDS:-}" ]; then
  targets=$(find $tree/fuzz -maxdepth 1 -name 'fuzz_*' -type f -perm -u+x | wc -l)
  seconds=$(( SHARDSCOPE_FUZZ_TOTAL_SECONDS / (targets > 0 ? targets : 1) ))
  [ "$seconds" -ge 10 ] || seconds=10
  echo "fuzz: ${SHARDSCOPE_FUZZ_TOTAL_SECONDS}s shared by $targets targets: ${seconds}s each"
fi
status=0
for exe in $tree/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe"); name=${name#fuzz_}
  work=$out/corpus-$name
  [ "${SHARDSCOPE_FUZZ_KEEP:-0}" = 1 ] || rm -rf "$work"
  mkdir -p "$work"
  # A target without a seed folder starts from the empty input (libFuzzer exits if a folder is missing).
  seeds=()
  [ -d fuzz/corpus/$name ] && seeds=(fuzz/corpus/$name)
  # The parser's keys and the hostile values (fuzz/make_dictionaries.py writes fuzz/dict/).
  dict=()
  [ -f fuzz/dict/$name.dict ] && dict=(-dict=fuzz/dict/$name.dict)
  echo "== fuzz $name for ${seconds}s"
  if ! "$exe" -seed="${SHARDSCOPE_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix=$out/findings/"$name"- -print_final_stats=1 "${dict[@]}" "$work" "${seeds[@]}" 2>$out/$name.log; then
    echo "fuzz $name FAILED:"; tail -40 $out/$name.log; status=1
  else
    grep -E "stat::number_of_executed_units|Done" $out/$name.log | tail -2 || true
  fi
done
exit $status
