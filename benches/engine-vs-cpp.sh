#!/usr/bin/env bash
# End-to-end throughput of the run engine against the plain C++ simulation of the same
# games (../shared/bench/dominoes-sim.cpp), side by side, alternating, best of R runs:
# greedy vs random, all 20 TCO09 cases, GAMES_PER_CASE games per case (default 10,000:
# 200,000 games), `--concurrency 1`, results written. Prints wall and CPU seconds and
# peak RSS for each, and the ratio of the best wall times (docs/benchmarks.md).
#
#   benches/engine-vs-cpp.sh [GAMES_PER_CASE] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
gpc=${1:-10000}
runs=${2:-5}
sim=${TMPDIR:-/tmp}/dominoes-sim
g++ -O2 -o "$sim" ../shared/bench/dominoes-sim.cpp
cargo build --release -p arena --quiet
arena=target/release/arena
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
best() { sort -n | head -1; }
: > "$out/cpp"; : > "$out/arena"
for r in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %M" -a -o "$out/cpp" "$sim" greedy random $((gpc / 2)) > /dev/null
  rm -rf "$out/run"
  /usr/bin/time -f "%e %U %M" -a -o "$out/arena" "$arena" match --game dominoes \
    --agent greedy --agent random --games-per-case "$gpc" --concurrency 1 \
    --progress never --out "$out/run" > /dev/null 2>&1
done
games=$((20 * gpc))
for who in cpp arena; do
  wall=$(cut -d' ' -f1 "$out/$who" | best)
  cpu=$(cut -d' ' -f2 "$out/$who" | best)
  rss=$(cut -d' ' -f3 "$out/$who" | sort -n | tail -1)
  echo "$who: best wall ${wall} s, best user ${cpu} s, peak RSS ${rss} KB, $(awk "BEGIN{printf \"%.0f\", $games/$wall}") games/s"
done
echo "wall ratio arena/cpp: $(awk "BEGIN{printf \"%.2f\", $(cut -d' ' -f1 "$out/arena" | best)/$(cut -d' ' -f1 "$out/cpp" | best)}")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
