#!/usr/bin/env bash
# Détrak exact solving, two `arena` binaries side by side (docs/benchmarks.md, Puzzles):
# for each instance (one a line, `#` comments skipped), `arena solve detrak INSTANCE
# --json` once with each binary, one process each (process start included), alternating
# which goes first; the new binary's answer refereed by `arena score`. Writes a CSV:
# wall seconds, scores and `optimal` of both, the referee's verdict, the 1-minute load.
#
#   benches/detrak-side-by-side.sh OLD_ARENA NEW_ARENA INSTANCES_FILE OUT_CSV
#   e.g. target/release/arena gen detrak --seeds 1000..1040 --dir in && cat in/*.txt > heldout.txt
set -euo pipefail
old=$1 new=$2 instances=$3 out=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
solve() { # binary instance -> "seconds score optimal"
    local t0 t1 json
    t0=$(date +%s.%N)
    json=$("$1" solve detrak "$2" --json)
    t1=$(date +%s.%N)
    echo "$(echo "$t1 - $t0" | bc) $(echo "$json" | sed 's/.*"score":\([-0-9]*\),"optimal":\([a-z]*\).*/\1 \2/')"
}
echo "n,old_s,new_s,old_score,new_score,old_optimal,new_optimal,new_checked,load" > "$out"
n=0
grep -v '^#' "$instances" | grep -v '^$' | while IFS= read -r instance; do
    n=$((n + 1))
    if [ $((n % 2)) = 1 ]; then o=$(solve "$old" "$instance"); w=$(solve "$new" "$instance")
    else w=$(solve "$new" "$instance"); o=$(solve "$old" "$instance"); fi
    echo "$instance" > "$scratch/instance"
    "$new" solve detrak "$instance" | cut -f2 > "$scratch/answer"
    verdict=$("$new" score detrak "$scratch/instance" "$scratch/answer")
    read -r os osc oo <<< "$o"
    read -r ns nsc no <<< "$w"
    echo "$n,$os,$ns,$osc,$nsc,$oo,$no,$verdict,$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
done
