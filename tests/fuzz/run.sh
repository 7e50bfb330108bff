#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/README.md).
# Usage: tests/fuzz/run.sh fuzz|smoke SECONDS BINDIR
#   fuzz   each target for SECONDS, new inputs kept in build/fuzz/corpus/TARGET
#   smoke  replay every seed and regression input, then SECONDS of fuzzing each
# Prints the CPU seconds spent and one closing line; fails on any crash.
set -u
mode=$1; secs=$2
# Absolute paths: a target may chdir (fuzz_client stands in a scratch
# directory), and libFuzzer writes new inputs and crashes by these paths.
bindir=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
pass=0; fail=0; failed=()
start=$(date +%s)
for bin in "$bindir"/fuzz_*; do
  t=$(basename "$bin"); t=${t#fuzz_}
  seeds=$here/corpus/$t
  work=$(dirname "$bindir")/corpus/$t
  [ "$mode" = smoke ] && work=$(mktemp -d)
  mkdir -p "$work" "$seeds"
  dict=(); [ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
  # TARGET.flags: the target's own libFuzzer options, one line.
  [ -f "$here/$t.flags" ] && read -r -a flags <"$here/$t.flags" && dict+=("${flags[@]}")
  echo "== fuzz $mode: $t (${secs}s)"
  ok=1
  # Regression inputs (crashes found once) and seeds replayed first.
  if [ -d "$here/regress/$t" ] && ls "$here/regress/$t"/* >/dev/null 2>&1; then
    "$bin" -runs=0 "$here/regress/$t"/* >"$work.log" 2>&1 || ok=0
  fi
  if [ $ok = 1 ]; then
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$(dirname "$bindir")/crash-$t-" "${dict[@]}" \
      "$work" "$seeds" >>"$work.log" 2>&1 || ok=0
  fi
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$work.log" | tr '\n' ' '; echo
  if [ $ok = 1 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); failed+=("$t"); tail -40 "$work.log"; fi
  [ "$mode" = smoke ] && rm -rf "$work" "$work.log"
done
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "fuzz $mode: $pass passed, $fail failed ($(( $(date +%s) - start ))s wall)"
[ "$fail" -eq 0 ]
