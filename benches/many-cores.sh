#!/bin/bash
# The many-core check of issue 26, as run on a lent 16-core machine (docs/benchmarks.md):
# put arena-old and arena-new (two release builds) and dominoes-sim (g++ -O2 -static of
# ../shared/bench/dominoes-sim.cpp) in one folder with this script, and run it there.
# Prints the C++ simulation's own scaling (1, 8, 16 copies at once), both engines at
# 1-16 workers (200,000 games per worker, best of $REPS, default 3), the two-core case on
# two pinned cores (taskset -c 0,1), one thread side by side with the C++, byte-identity
# at 1 and 16 workers, and the peak RSS of ten million games. Set ENGINES="arena-new" to
# time only the new build.
set -u
REPS=${REPS:-3}
ENGINES=${ENGINES:-arena-old arena-new}
cd "$(dirname "$0")"
log=${OUT:-/tmp}/scale.log
exec > >(tee "$log") 2>&1
lscpu | grep -E "^(Thread|Core|Socket|NUMA node\(s\)|Model name)" | tr -s ' '
echo "cores $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); kernel $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
now() { date +%s.%N; }
w=/tmp/scale; rm -rf $w; mkdir -p $w
# The C++ simulation: 1 copy, then 8 and 16 at once (200,000 games each).
s=$(now); ./dominoes-sim greedy random 5000 >/dev/null; e=$(now); echo "cpp x1: $(awk "BEGIN{print $e-$s}") s"
s=$(now); pids=""; for i in $(seq 8); do ./dominoes-sim greedy random 5000 >/dev/null & pids="$pids $!"; done; wait $pids; e=$(now); echo "cpp x8 (parallel copies): $(awk "BEGIN{print $e-$s}") s"
s=$(now); pids=""; for i in $(seq 16); do ./dominoes-sim greedy random 5000 >/dev/null & pids="$pids $!"; done; wait $pids; e=$(now); echo "cpp x16 (parallel copies): $(awk "BEGIN{print $e-$s}") s"
run() { # binary concurrency games-per-case [taskset cpu list]
  rm -rf $w/run; local s=$(now) pin=""
  [ -n "${4:-}" ] && pin="taskset -c $4"
  $pin ./$1 match --game dominoes --agent greedy --agent random --games-per-case $3 --concurrency $2 --progress never --out $w/run >/dev/null 2>$w/err || { echo "FAILED $*"; cat $w/err; }
  awk "BEGIN{print $(now)-$s}"
}
for bin in $ENGINES; do
  base=""
  for c in 1 2 4 8 12 16; do
    best=999
    for r in $(seq $REPS); do t=$(run $bin $c $((10000 * c))); best=$(awk "BEGIN{print ($t<$best)?$t:$best}"); done
    [ -z "$base" ] && base=$best
    echo "$bin c=$c games=$((200000 * c)) best-of-$REPS wall=${best}s games/s=$(awk "BEGIN{printf \"%.0f\", 200000*$c/$best}") efficiency=$(awk "BEGIN{printf \"%.0f%%\", 100*$base/$best}")"
  done
done
# Two cores: the process pinned to cores 0 and 1 (the 2-core case without a 2-core
# machine's neighbours), 500,000 games at one worker against 1,000,000 at two, alternating,
# best of $REPS; and the C++ on the same two cores, one copy against two.
b1=999; b2=999; c1=999; c2=999
for r in $(seq $REPS); do
  t=$(run arena-new 1 25000 0,1); b1=$(awk "BEGIN{print ($t<$b1)?$t:$b1}")
  t=$(run arena-new 2 50000 0,1); b2=$(awk "BEGIN{print ($t<$b2)?$t:$b2}")
  s=$(now); taskset -c 0 ./dominoes-sim greedy random 12500 >/dev/null; t=$(awk "BEGIN{print $(now)-$s}"); c1=$(awk "BEGIN{print ($t<$c1)?$t:$c1}")
  s=$(now); taskset -c 0 ./dominoes-sim greedy random 12500 >/dev/null & p1=$!; taskset -c 1 ./dominoes-sim greedy random 12500 >/dev/null & p2=$!; wait $p1 $p2; t=$(awk "BEGIN{print $(now)-$s}"); c2=$(awk "BEGIN{print ($t<$c2)?$t:$c2}")
done
echo "two pinned cores: arena-new c=1 500k ${b1}s, c=2 1M ${b2}s, efficiency $(awk "BEGIN{printf \"%.0f%%\", 100*$b1/$b2}"); cpp one copy ${c1}s, two copies ${c2}s, efficiency $(awk "BEGIN{printf \"%.0f%%\", 100*$c1/$c2}")"
# Single thread side by side, alternating: C++ vs arena-new c=1 (200,000 games), 5 each.
for r in $(seq $((REPS + 2))); do
  s=$(now); ./dominoes-sim greedy random 5000 >/dev/null; e=$(now); c1=$(awk "BEGIN{print $e-$s}")
  old=""; case " $ENGINES " in *" arena-old "*) old=", arena-old c=1 $(run arena-old 1 10000) s";; esac
  echo "alt $r: cpp $c1 s, arena-new c=1 $(run arena-new 1 10000) s$old"
done
# Byte-identity: the same 400,000 games at 1 and 16 workers.
for c in 1 16; do rm -rf $w/id$c; ./arena-new match --game dominoes --agent greedy --agent random --games-per-case 20000 --concurrency $c --progress never --out $w/id$c >/dev/null 2>&1; sha256sum $w/id$c/games.csv | cut -c1-16; done
# Peak RSS: ten million games at 16 workers, and at 2.
for c in 16 2; do
  rm -rf $w/big
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "10M games c=$c: wall %e s, user %U s, peak RSS %M KB" ./arena-new match --game dominoes --agent greedy --agent random --games-per-case 500000 --concurrency $c --progress never --out $w/big >/dev/null
  else
    python3 -c "import resource,subprocess,time,sys;s=time.time();subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);print('10M games c=$c: wall %.2f s, peak RSS %d KB'%(time.time()-s,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))" ./arena-new match --game dominoes --agent greedy --agent random --games-per-case 500000 --concurrency $c --progress never --out $w/big
  fi
  ls -la $w/big/games.csv | awk '{print "games.csv bytes", $5}'
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
