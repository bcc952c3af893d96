#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a C++ file of the repository differs from what .clang-format makes of it, listing the
# files (fix: clang-format -i FILE). Run by .ci/run before the builds; takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.hpp')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} files differ from .clang-format (clang-format -i them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: every C++ file follows .clang-format"
