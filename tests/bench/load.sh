#!/usr/bin/env bash
# The load part of `make bench`: tests/bench/loadgen drives echod (the
# transport ceiling) and kriegd with the same lines in the same run, at
# C = 2, 32, 200 and 2,000 connections (no think time: throughput), at
# 2,000 connections with 1 s think time (latency at 1,000 live games), the
# same with a `who` every 100 ms (a server-wide list beside the games), and
# 10,000 idle TLS connections (memory); then kriegd's WebSocket door
# against its own line transport (loadgen --ws: C = 32 and 200, and
# LOAD_WS_IDLE idle connections); then prints the tables.
#
# Usage: tests/bench/load.sh BINDIR BENCHDIR    (make bench passes them)
# Env:   LOAD_SECONDS=5   the measured window of each run
#        LOAD_IDLE=10000  idle connections (the hard RLIMIT_NOFILE must allow it)
#        LOAD_WS_IDLE=2000  idle connections of the WebSocket comparison
#        TMPDIR           where kriegd's state lives (the disk under test)
set -u
bindir=${1:?usage: tests/bench/load.sh BINDIR BENCHDIR}
benchdir=${2:?usage: tests/bench/load.sh BINDIR BENCHDIR}
secs=${LOAD_SECONDS:-5}
idle=${LOAD_IDLE:-10000}
wsidle=${LOAD_WS_IDLE:-2000}
lg="$benchdir/loadgen"
kd="$bindir/kriegd"
ed="$benchdir/echod"
for f in "$lg" "$kd" "$ed"; do
  [ -x "$f" ] || { echo "bench: $f not found (build it first)" >&2; exit 1; }
done
# The tools raise their soft RLIMIT_NOFILE to the hard one; 10,000 idle
# connections need about 10,100 descriptors on each side.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt $((idle + 200)) ]; then
  echo "bench: hard RLIMIT_NOFILE $hard < $((idle + 200)): idle connections cut to $((hard - 200))"
  idle=$((hard - 200))
fi
if [ "$hard" != unlimited ] && [ "$hard" -lt $((wsidle + 200)) ]; then
  wsidle=$((hard - 200))
fi

rows=()
wsrows=()
status=0
run() {
  local out
  out=$("$lg" -r "$@" "$kd" "$ed" 2>&1) || { echo "$out"; echo "bench: loadgen $* failed"; status=1; return; }
  printf '%s\n' "$out" | grep -v '^WS\{0,1\}ROW|'
  local row wsrow
  row=$(printf '%s\n' "$out" | sed -n 's/^ROW//p')
  wsrow=$(printf '%s\n' "$out" | sed -n 's/^WSROW//p')
  [ -z "$row" ] || rows+=("$row")
  [ -z "$wsrow" ] || wsrows+=("$wsrow")
}
for c in 2 32 200 2000; do run -c "$c" -d "$secs"; done
run -c 2000 -t 1000 -d "$((secs > 10 ? secs : 10))"
run -c 2000 -t 1000 --who 100 -d "$((secs > 10 ? secs : 10))"
run -i "$idle"
for c in 32 200; do run --ws -c "$c" -d "$secs"; done
run --ws -i "$wsidle"

echo
echo "== load table ($(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1), $(uname -sr), store_synchronous=full, TMPDIR=${TMPDIR:-/tmp})"
echo "| connections | think | kriegd tries/s | echod req/s | ratio | CPU us/try kriegd / echod | kriegd games/s | try->ok p99 ms kriegd / echod | try->opponent p99 ms kriegd / echod | kriegd KiB per connection / per live game |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  case "$r" in *"idle TLS"*) ;; *) echo "$r" ;; esac
done
echo
echo "| memory | connections | kriegd | echod | ratio |"
echo "|---|---|---|---|---|"
for r in "${rows[@]}"; do
  case "$r" in *"idle TLS"*) echo "$r" ;; esac
done
echo
echo "== WebSocket v line transport, the same kriegd (target: tries/s and p99 within 15%; idle memory within 2 KiB)"
echo "| connections | think | tries/s ws / line | ratio | try->ok p99 ms ws / line | ratio | try->opponent p99 ms ws / line | CPU us/try ws / line | within 15% |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in "${wsrows[@]}"; do
  case "$r" in *"idle connections"*) ;; *) echo "$r" ;; esac
done
echo
echo "| memory | connections | ws | line | ws - line | within 2 KiB |"
echo "|---|---|---|---|---|---|"
for r in "${wsrows[@]}"; do
  case "$r" in *"idle connections"*) echo "$r" ;; esac
done
exit $status
