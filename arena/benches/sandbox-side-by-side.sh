#!/bin/bash
# The sandbox's round trip and start, two builds side by side (docs/benchmarks.md, "The
# sandbox of issue 33, second pass"). Build each checkout's bench first:
#   (cd CHECKOUT && cargo bench -p arena --bench protocol --no-run)
# then: arena/benches/sandbox-side-by-side.sh OLD_CHECKOUT OLD_BENCH NEW_CHECKOUT NEW_BENCH
# (BENCH: the target/release/deps/protocol-* executable each build printed). Two rounds
# idle, then two with two nice-19 spinners keeping the cores awake; old and new alternate.
set -u
old_dir=$1 old_bench=$2 new_dir=$3 new_bench=$4
for mode in idle busy; do
  spinners=()
  if [ "$mode" = busy ]; then
    for _ in 1 2; do nice -n 19 sh -c 'while :; do :; done' & spinners+=($!); done
  fi
  for round in 1 2; do
    for which in old new; do
      if [ "$which" = old ]; then dir=$old_dir bench=$old_bench; else dir=$new_dir bench=$new_bench; fi
      echo "== $mode round $round $which load $(cut -d' ' -f1 /proc/loadavg)"
      (cd "$dir/arena" && "$bench" --bench nomatch 2>&1 | grep protocol/)
    done
  done
  if [ ${#spinners[@]} -gt 0 ]; then kill "${spinners[@]}"; fi
done
