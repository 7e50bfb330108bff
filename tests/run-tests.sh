#!/usr/bin/env bash
# Runs Check test binaries and prints one closing line.
# Usage: tests/run-tests.sh LABEL BINARY...
# KRIEG_TEST_JOBS suites run at once (default: one per core); each suite's
# output is held until it ends and printed whole, with its wall time (make
# check aims at ten minutes: these say where the time goes).  The
# suites start in the order given, so the longest should come first.
# With LABEL memcheck they run one at a time, and with
# KRIEG_MEMCHECK_LOGDIR set (tests/integration/valgrind-kriegd writes one
# valgrind log per daemon process there) a suite also fails if any of its
# daemons' logs is not empty: killed daemons included.
set -u
label=$1; shift
pass=0; fail=0; failed=(); failed_logs=()
vgdir=
jobs=${KRIEG_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
if [ "$label" = memcheck ]; then
  vgdir=${KRIEG_MEMCHECK_LOGDIR:-}
  jobs=1   # one log directory, read after each suite
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/krieg-tests-XXXXXX")
trap 'rm -rf "$out"' EXIT

# One suite: its output into $out/N.log, "ok" or "fail" into $out/N.rc.
suite() {
  local i=$1 t=$2 ok=1 start=$SECONDS
  {
    echo "== $label: $(basename "$t")"
    if [ -n "$vgdir" ]; then mkdir -p "$vgdir" && rm -f "$vgdir"/*.vg; fi
    "$t" || ok=0
    if [ -n "$vgdir" ]; then
      local n=0 bad=0 f
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
    echo "== $label: $(basename "$t"): $((SECONDS - start)) s"
  } > "$out/$i.log" 2>&1
  if [ "$ok" = 1 ]; then echo ok > "$out/$i.rc"; else echo fail > "$out/$i.rc"; fi
}

# Print and count one finished suite.
report() {
  local i=$1 t=$2
  cat "$out/$i.log"
  if [ "$(cat "$out/$i.rc" 2>/dev/null)" = ok ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); failed+=("$(basename "$t")"); failed_logs+=("$out/$i.log"); fi
}

declare -A running=()   # pid -> index
names=("$@")
next=0
while [ "$next" -lt ${#names[@]} ] || [ ${#running[@]} -gt 0 ]; do
  while [ "$next" -lt ${#names[@]} ] && [ ${#running[@]} -lt "$jobs" ]; do
    suite "$next" "${names[$next]}" &
    running[$!]=$next
    next=$((next + 1))
  done
  done_pid=
  wait -n -p done_pid "${!running[@]}"
  if [ -z "$done_pid" ]; then
    # No child left to wait for: whatever is still listed has ended
    # unseen (its result file says how, and a missing one is a failure).
    for p in "${!running[@]}"; do
      report "${running[$p]}" "${names[${running[$p]}]}"
      unset "running[$p]"
    done
    continue
  fi
  i=${running[$done_pid]}
  unset "running[$done_pid]"
  report "$i" "${names[$i]}"
done
# Each failed suite's failures again, last, where a CI page that shows
# only the end of the output still has them (Check's "file:line:F:" and
# ":E:" lines; a suite that died without one shows its last lines).
for f in "${failed_logs[@]}"; do
  echo "-- $(head -n 1 "$f" | sed 's/^== //'): failures"
  grep -E '^[^ ]+:[0-9]+:[FE]:' "$f" | head -n 5 | cut -c 1-400 | grep . || tail -n 5 "$f" | cut -c 1-400
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
