#!/bin/bash
# Byte-identity of outputs between two arena binaries (issue 43): the README run, the
# shipped configs, `arena solve` (positions and puzzles), and a league's export over the
# prefix of each pair both played. Usage: benches/outputs-side-by-side.sh OLD NEW WORKDIR
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); W=$(realpath -m "$3"); rm -rf $W; mkdir -p $W
cd "$(dirname "$0")/.."
ok=0; bad=0
same() { if cmp -s "$1" "$2"; then echo "SAME  $3"; ok=$((ok+1)); else echo "DIFF  $3 ($1 $2)"; bad=$((bad+1)); fi; }
for v in old new; do B=$OLD; [ $v = new ] && B=$NEW
  $B run configs/tco09.toml --out $W/$v-readme --progress never > $W/$v-readme.out 2>&1
  $B run configs/puzzles.toml --out $W/$v-puzzles --progress never > $W/$v-puzzles.out 2>&1
  $B run configs/quarto.toml --out $W/$v-quarto --progress never > $W/$v-quarto.out 2>&1
  while IFS="|" read -r g p; do echo "== $g $p"; $B solve $g "$p" --progress never 2>&1; $B solve $g "$p" --json --progress never 2>&1; done > $W/$v-solve.txt <<'POSITIONS'
dominoes|5|2,4|1-2|0-0,3-3|0
dominoes|8|3,5|3-3||0
quarto|.8f.eb..1d2.....:7
quarto|7938a2bdf5c01e46:-
POSITIONS
  for g in detrak dominopeg dust; do $B gen $g --seeds 0..4 --dir $W/$v-gen-$g >/dev/null 2>&1; for f in $W/$v-gen-$g/*; do echo "== $g $(basename $f)"; $B solve $g --progress never < "$f" 2>&1 | grep -v -i "time\|seconds\| ms\b"; done; done > $W/$v-solve-puzzles.txt
  # A league: three built-ins, a fixed seed, a fixed number of games; then export.
  L=$W/$v-league; $B league init $L --game dominoes --cases "5,4 9,7" --seed 77 >/dev/null
  $B league add $L greedy greedy --benchmark >/dev/null; $B league add $L random random --benchmark >/dev/null
  $B league add $L learned learned >/dev/null
  $B league run $L --games 3000 --concurrency 2 > /dev/null 2>&1
  $B league export $L $W/$v-export >/dev/null 2>&1
done
same $W/old-readme/games.csv $W/new-readme/games.csv "README run games.csv"
same $W/old-readme/summary.csv $W/new-readme/summary.csv "README run summary.csv"
sed "s,$W/old-,X-," $W/old-readme.out > $W/o.tmp; sed "s,$W/new-,X-," $W/new-readme.out > $W/n.tmp; same $W/o.tmp $W/n.tmp "README run console (paths aside)"
same $W/old-quarto/games.csv $W/new-quarto/games.csv "quarto config games.csv"
same $W/old-puzzles/games.csv $W/new-puzzles/games.csv "puzzles config games.csv"
same $W/old-puzzles/summary.csv $W/new-puzzles/summary.csv "puzzles config summary.csv"
same $W/old-solve.txt $W/new-solve.txt "arena solve (positions)"
same $W/old-solve-puzzles.txt $W/new-solve-puzzles.txt "arena solve (puzzles)"
# Each pair's games over the prefix both played.
for d in $W/old-export/*/; do p=$(basename $d); o=$d/games.csv; n=$W/new-export/$p/games.csv
  [ -f $n ] || { echo "DIFF  export pair $p missing in new"; bad=$((bad+1)); continue; }
  k=$(( $(wc -l < $o) < $(wc -l < $n) ? $(wc -l < $o) : $(wc -l < $n) ))
  # the last column is the running check of the rows before it: equal over a common prefix too
  head -n $k $o > $W/o.tmp; head -n $k $n > $W/n.tmp
  same $W/o.tmp $W/n.tmp "league export $p, first $((k-1)) games of $(($(wc -l < $o)-1)) / $(($(wc -l < $n)-1))"
done
echo "same: $ok  different: $bad"
