#!/usr/bin/env bash
# Runs Check test binaries one after another and prints one closing line.
# Usage: tests/run-tests.sh LABEL BINARY...
set -u
label=$1; shift
pass=0; fail=0; failed=()
for t in "$@"; do
  echo "== $label: $(basename "$t")"
  if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$(basename "$t")"); fi
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
