#!/usr/bin/env bash
# Runs Check test binaries one after another and prints one closing line.
# Usage: tests/run-tests.sh LABEL BINARY...
# Each suite's wall time is printed after it (make check is kept under ten
# minutes: these say where they go).  With LABEL memcheck and
# KRIEG_MEMCHECK_LOGDIR set (tests/integration/valgrind-kriegd writes one
# valgrind log per daemon process there) a suite also fails if any of its
# daemons' logs is not empty: killed daemons included.
set -u
label=$1; shift
pass=0; fail=0; failed=()
vgdir=
[ "$label" != memcheck ] || vgdir=${KRIEG_MEMCHECK_LOGDIR:-}
for t in "$@"; do
  echo "== $label: $(basename "$t")"
  start=$SECONDS
  if [ -n "$vgdir" ]; then mkdir -p "$vgdir" && rm -f "$vgdir"/*.vg; fi
  ok=1
  "$t" || ok=0
  if [ -n "$vgdir" ]; then
    n=0; bad=0
    for f in "$vgdir"/*.vg; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      if [ -s "$f" ]; then
        bad=$((bad + 1)); ok=0
        echo "-- valgrind report, $(basename "$f"):"; cat "$f"
      fi
    done
    echo "== $label: $(basename "$t"): $n kriegd processes under valgrind, $bad with a report"
  fi
  if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$(basename "$t")"); fi
  echo "== $label: $(basename "$t"): $((SECONDS - start)) s"
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
