#!/usr/bin/env bash
# Perft benchmark: krieg-referee against Stockfish on the same machine, then
# the full-depth perft suite (published counts) through krieg-referee.
#
# Usage: tests/bench/run.sh BINDIR      (make bench passes it)
# Env:   STOCKFISH=/path/to/stockfish   (default: stockfish on PATH, or /usr/games/stockfish)
#        BENCH_DEPTH=6                  (start-position depth for the head-to-head)
set -u
bindir=${1:?usage: tests/bench/run.sh BINDIR}
ref="$bindir/krieg-referee"
depth=${BENCH_DEPTH:-6}
[ -x "$ref" ] || { echo "bench: $ref not found (build it first)" >&2; exit 1; }

sf=${STOCKFISH:-$(command -v stockfish || true)}
[ -n "$sf" ] || [ ! -x /usr/games/stockfish ] || sf=/usr/games/stockfish

now() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }
# The first integer after the word "nodes" (tolerant of "nodes N", "nodes: N", "Nodes searched: N").
nodes_of() { grep -io 'nodes[^0-9]*[0-9]\+' | head -n1 | grep -o '[0-9]\+$'; }

echo "== perft $depth from the start position"
t0=$(now)
kout=$("$ref" perft "$depth") || { echo "bench: krieg-referee perft failed" >&2; exit 1; }
t1=$(now)
knodes=$(printf '%s\n' "$kout" | nodes_of)
kns=$((t1 - t0))
echo "krieg-referee: nodes $knodes  wall $(secs $kns) s"

status=0
if [ -n "$sf" ] && [ -x "$sf" ]; then
  # Stockfish's wall time includes its start-up (network load); measure
  # that alone too, so the comparison can be read both ways.
  t0=$(now); printf 'quit\n' | "$sf" >/dev/null 2>&1; t1=$(now)
  sfstart=$((t1 - t0))
  t0=$(now)
  sout=$(printf 'position startpos\ngo perft %d\nquit\n' "$depth" | "$sf" 2>/dev/null)
  t1=$(now)
  snodes=$(printf '%s\n' "$sout" | nodes_of)
  sns=$((t1 - t0))
  echo "stockfish:     nodes $snodes  wall $(secs $sns) s (start-up alone $(secs $sfstart) s)"
  if [ "$knodes" != "$snodes" ]; then
    echo "MISMATCH: node counts differ"; status=1
  fi
  awk -v k="$kns" -v s="$sns" -v u="$sfstart" 'BEGIN {
    printf "ratio krieg/stockfish: %.2f (wall), %.2f (stockfish start-up subtracted)\n", k / s, k / (s - u > 0 ? s - u : s);
    if (k <= s) print "goal met: krieg perft is not slower than Stockfish"; else print "goal NOT met: krieg perft is slower than Stockfish" }'
else
  echo "stockfish not found: skipping the comparison (apt-get install stockfish)"
fi

echo
echo "== full-depth perft suite (chessprogramming wiki 'Perft Results' and talkchess positions)"
suite=(
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1|6|119060324"
  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1|5|193690690"
  "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1|7|178633661"
  "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1|5|15833292"
  "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1|5|15833292"
  "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8|5|89941194"
  "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10|5|164075551"
  "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1|6|1134888"
  "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1|6|1015133"
  "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1|6|1440467"
  "5k2/8/8/8/8/8/8/4K2R w K - 0 1|6|661072"
  "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1|6|803711"
  "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1|4|1274206"
  "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1|4|1720476"
  "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1|6|3821001"
  "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1|5|1004658"
  "4k3/1P6/8/8/8/8/K7/8 w - - 0 1|6|217342"
  "8/P1k5/K7/8/8/8/8/8 w - - 0 1|6|92683"
  "K1k5/8/P7/8/8/8/8/8 w - - 0 1|6|2217"
  "8/k1P5/8/1K6/8/8/8/8 w - - 0 1|7|567584"
  "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1|4|23527"
)
total=0; pass=0; fail=0
for entry in "${suite[@]}"; do
  IFS='|' read -r fen d want <<<"$entry"
  t0=$(now)
  got=$("$ref" perft "$d" "$fen" | nodes_of)
  t1=$(now)
  total=$((total + t1 - t0))
  if [ "$got" = "$want" ]; then r=ok; pass=$((pass + 1)); else r="FAIL (want $want)"; fail=$((fail + 1)); fi
  printf '%-8s %12s  d%-2s %7s s  %s\n' "$r" "${got:-?}" "$d" "$(secs $((t1 - t0)))" "$fen"
done
echo "suite: $pass passed, $fail failed, $(secs $total) s in all"
[ "$fail" -eq 0 ] || status=1
exit $status
