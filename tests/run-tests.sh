#!/usr/bin/env bash
# Runs Check test binaries one after another and prints one closing line.
# Usage: tests/run-tests.sh LABEL BINARY...
# With LABEL memcheck, each suite's wall time is printed after it.
set -u
label=$1; shift
pass=0; fail=0; failed=()
for t in "$@"; do
  echo "== $label: $(basename "$t")"
  start=$SECONDS
  if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$(basename "$t")"); fi
  [ "$label" != memcheck ] || echo "== $label: $(basename "$t"): $((SECONDS - start)) s"
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
