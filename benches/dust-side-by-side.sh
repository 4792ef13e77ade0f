#!/usr/bin/env bash
# Dust exact solving, two `arena` binaries side by side (docs/benchmarks.md, Puzzles):
# for each board (one a line, `#` comments skipped), `arena solve dust BOARD --json`
# once with each binary, one process each (process start included), alternating which
# goes first, each run cut at CAP seconds (`timeout`; a cut run is written `cut`); both
# answers refereed by `arena score` (the new binary's referee). Writes a CSV: wall
# seconds, moves and `optimal` of both, the referee's verdicts, the 1-minute load.
#
#   benches/dust-side-by-side.sh OLD_ARENA NEW_ARENA BOARDS_FILE OUT_CSV [CAP]
#   e.g. target/release/arena gen dust --seeds 2000..2048 --dir in && cat in/*.txt > heldout.txt
set -euo pipefail
old=$1 new=$2 boards=$3 out=$4 cap=${5:-600}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# binary board tag -> "seconds moves optimal verdict" (or "seconds cut cut cut")
solve() {
    local t0 t1 json
    t0=$(date +%s.%N)
    if ! json=$(timeout "$cap" "$1" solve dust "$2" --json); then
        t1=$(date +%s.%N)
        echo "$(echo "$t1 - $t0" | bc) cut cut cut"
        return
    fi
    t1=$(date +%s.%N)
    echo "$2" > "$scratch/board"
    # `"moves":[[7,0],[3,1],…]` -> `7,0 3,1 …`
    echo "$json" | sed 's/.*"moves":\[\[\(.*\)\]\].*/\1/; s/\],\[/ /g' > "$scratch/answer$3"
    local moves verdict optimal
    moves=$(wc -w < "$scratch/answer$3")
    optimal=$(echo "$json" | sed 's/.*"optimal":\([a-z]*\).*/\1/')
    verdict=$("$new" score dust "$scratch/board" "$scratch/answer$3" | tr -d '\n' | tr ',' ';')
    echo "$(echo "$t1 - $t0" | bc) $moves $optimal $verdict"
}
echo "n,old_s,new_s,old_moves,new_moves,old_optimal,new_optimal,old_checked,new_checked,load" > "$out"
n=0
grep -v '^#' "$boards" | grep -v '^$' | while IFS= read -r board; do
    n=$((n + 1))
    if [ $((n % 2)) = 1 ]; then o=$(solve "$old" "$board" old); w=$(solve "$new" "$board" new)
    else w=$(solve "$new" "$board" new); o=$(solve "$old" "$board" old); fi
    read -r os om oo ov <<< "$o"
    read -r ns nm no nv <<< "$w"
    echo "$n,$os,$ns,$om,$nm,$oo,$no,$ov,$nv,$(cut -d' ' -f1 /proc/loadavg)" >> "$out"
done
