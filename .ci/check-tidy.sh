#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy with the repository's .clang-tidy (no function over 150 lines; naming) over every
# source file of core and ui (the engine and the GUI; app/ is thin front ends and benchmarks), using a configured build's compile_commands.json (default
# build/release, which must have been built: the ui needs its generated moc headers). The build's
# GCC precompiled-header flags are dropped (clang cannot read GCC's .gch). Jobs: $2 (default 1, so
# CI can run it beside the single-threaded fuzzers). Prints each finding once; exit 1 on any.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
jobs=${2:-1}
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
sed -E 's/-include [^ ]*cmake_pch\.hxx//g; s/-Winvalid-pch//g' "$build/compile_commands.json" >"$db/compile_commands.json"
files=$(git ls-files 'core/src/*.cpp' 'ui/src/*.cpp')
log="$db/tidy.log"
printf '%s\n' $files | xargs -P "$jobs" -n 4 clang-tidy --quiet -p "$db" >"$log" 2>/dev/null || true
findings=$(grep -E '^/.*: (error|warning): ' "$log" | sort -u || true)
count=$(printf '%s' "$findings" | grep -c . || true)
echo "clang-tidy: $(printf '%s\n' $files | wc -l) files, $count findings"
if [ "$count" -gt 0 ]; then
  printf '%s\n' "$findings"
  exit 1
fi
