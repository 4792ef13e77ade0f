#!/usr/bin/env bash
# Many-core scaling of the run engine on cheap games: greedy vs random over the 20 TCO09
# cases, the work grown with the cores (GAMES_PER_CORE games per worker), at
# `--concurrency` 1, 2, 4, ... up to the machine's cores (or the list given). Prints the
# best wall time of RUNS runs at each, games per second, the efficiency against one
# core (1.0 = perfect: the wall time stays flat while the work grows with the cores),
# and the serial fraction that efficiency implies by Amdahl's law (docs/benchmarks.md).
#
#   benches/engine-scaling.sh [GAMES_PER_CORE] [RUNS] [CONCURRENCIES...]
set -euo pipefail
cd "$(dirname "$0")/.."
per_core=${1:-200000}
runs=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
cores=$(nproc)
if [ $# -gt 0 ]; then levels=("$@"); else
  levels=(); c=1; while [ "$c" -lt "$cores" ]; do levels+=("$c"); c=$((c * 2)); done; levels+=("$cores")
fi
cargo build --release -p arena --quiet
arena=target/release/arena
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%12s %10s %9s %12s %10s %8s\n' concurrency games wall games/s efficiency serial
base=""
for n in "${levels[@]}"; do
  games=$((per_core * n))
  gpc=$((games / 20))
  best=""
  for _ in $(seq "$runs"); do
    rm -rf "$out/run"
    start=$(date +%s.%N)
    "$arena" match --game dominoes --agent greedy --agent random --games-per-case "$gpc" \
      --concurrency "$n" --progress never --out "$out/run" > /dev/null 2>&1
    wall=$(awk "BEGIN{print $(date +%s.%N) - $start}")
    best=$(printf '%s\n%s\n' "${best:-$wall}" "$wall" | sort -g | head -1)
  done
  [ -z "$base" ] && base=$best
  eff=$(awk "BEGIN{print $base / $best}")
  # Amdahl: speedup S = n * eff = 1 / (f + (1 - f)/n)  =>  f = (n/S - 1)/(n - 1)
  serial=$(awk "BEGIN{ if ($n == 1) print \"-\"; else { s = $n * $eff; printf \"%.3f\", ($n / s - 1) / ($n - 1) } }")
  printf '%12s %10s %8.2fs %12.0f %9.0f%% %8s\n' "$n" $((gpc * 20)) "$best" "$(awk "BEGIN{print $gpc * 20 / $best}")" "$(awk "BEGIN{print 100 * $eff}")" "$serial"
done
