#!/usr/bin/env bash
# krieg-bot's benchmark (issue 14), run by `make bench`: strength at a fixed
# time per move, belief containment, and the K+R v K ending.  In-process
# (arena --local): the same bots as over the network, without the server.
# Sizes: KRIEG_BOT_GAMES (default 200), KRIEG_BOT_MOVETIME ms (default 1000),
# KRIEG_BOT_KRK (default 100).  The defaults take hours; smaller ones give a preview.
set -eu
bin=$1/krieg-bot
games=${KRIEG_BOT_GAMES:-200}
mt=${KRIEG_BOT_MOVETIME:-1000}
krk=${KRIEG_BOT_KRK:-100}
echo "== krieg-bot: $games games per pairing at $mt ms per move"
for rules in icc english; do
  "$bin" arena --local --white full --black random --games "$games" --rules "$rules" --movetime "$mt"
  "$bin" arena --local --white full --black greedy --games "$games" --rules "$rules" --movetime "$mt"
done
echo "== krieg-bot: K+R v K, $krk random starts, full (White) v random"
# random legal starts: a fixed seed per start, White king and rook, Black king
for i in $(seq 1 "$krk"); do
  fen=$("$bin" krk-fen --seed "$i")
  "$bin" arena --local --white full --black random --games 1 --rules icc --movetime "$mt" --fen "$fen" --seed "$i" | head -1
done | awk '{ n++; if ($3=="1-0") { won++; moves+=$6 } }
  END { printf "K+R v K: %d of %d mated within the fifty-move rule, %.1f moves on average when mated\n", won, n, won ? moves/won : 0 }'
