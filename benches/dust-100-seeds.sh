#!/bin/bash
# Issue 25's "no board of the 100 seeds slower than today": seeds 0..100 of `arena gen
# dust`, `arena solve dust BOARD --json` with efa3359 (arena-dust-old) and this build
# (arena-new), one process each, alternating which goes first, each cut at CAP seconds,
# P boards at once; the new answer refereed by `arena score`. One CSV line a seed
# ($OUT/dust100.csv), then a summary. Put the two binaries beside this script (as run
# on the lent 16-core machine: docs/benchmarks.md, dust).
set -u
cd "$(dirname "$0")"
CAP=${CAP:-40}; P=${P:-14}
out=${OUT:-/tmp}/dust100.csv
rm -rf /tmp/d100; mkdir -p /tmp/d100
./arena-new gen dust --seeds 0..100 --dir /tmp/d100/in >/dev/null
one() { # seed
  local s=$1 b; b=$(cat /tmp/d100/in/$(printf %04d $s).txt)
  solve() { # binary tag
    local t0=$(date +%s.%N) json
    if ! json=$(timeout $CAP ./$1 solve dust "$b" --json 2>/dev/null); then echo "$(awk "BEGIN{print $(date +%s.%N)-$t0}") cut cut -"; return; fi
    local t=$(awk "BEGIN{print $(date +%s.%N)-$t0}")
    echo "$b" > /tmp/d100/b$s$2
    echo "$json" | sed 's/.*"moves":\[\[\(.*\)\]\].*/\1/; s/\],\[/ /g' > /tmp/d100/a$s$2
    local v=$(./arena-new score dust /tmp/d100/b$s$2 /tmp/d100/a$s$2 2>&1 | tr -d '\n' | tr ',' ';')
    echo "$t $(wc -w < /tmp/d100/a$s$2) $(echo "$json" | sed 's/.*"optimal":\([a-z]*\).*/\1/') $v"
  }
  if [ $((s % 2)) = 0 ]; then o=$(solve arena-dust-old o); n=$(solve arena-new n); else n=$(solve arena-new n); o=$(solve arena-dust-old o); fi
  read -r os om oo ov <<< "$o"; read -r ns nm no nv <<< "$n"
  echo "$s,$os,$ns,$om,$nm,$oo,$no,$nv" >> $out
}
export -f one; export CAP out
echo "seed,old_s,new_s,old_moves,new_moves,old_optimal,new_optimal,new_checked" > $out
seq 0 99 | xargs -P $P -I{} bash -c 'one {}'
tail -n +2 $out | sort -t, -k1 -n | awk -F, '{r=($3>0)?$2/$3:0; if(m==""||r<m){m=r;ms=$1}} END{print "smallest old/new ratio", m, "seed", ms}'
awk -F, 'NR>1{n++; if($3>$2) slow++; if($6=="true") po++; if($7=="true") pn++; if($6=="true"&&$7=="true"&&$4!=$5) diff++} END{print n, "boards;", slow+0, "slower; proven old", po, "new", pn, "; different optimum", diff+0}' $out
