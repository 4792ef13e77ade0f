#!/usr/bin/env bash
# Runs CONFIG as SHARDS shards with GNU parallel, JOBS at a time, then merges them into
# OUT/merged, byte-identical to an unsharded `arena run CONFIG` (docs/scale.md).
#
#   scale/parallel.sh CONFIG OUT [SHARDS] [JOBS] [-- extra parallel options]
#
# Many hosts: add `--sshloginfile hosts.txt` (and a shared OUT, or `--return`). Re-running
# the script retries only the shards that failed (`--joblog` + `--resume-failed`); a
# finished shard has nothing to do, so retries never play a game twice.
# ARENA names the arena binary (default: `arena` on PATH).
set -euo pipefail
config=$1
out=$2
shards=${3:-4}
jobs=${4:-2}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = "--" ] && shift
arena=${ARENA:-arena}
mkdir -p "$out"
# Exit codes of `arena run`: 0 done, 2 bad input (retrying will not help), 3 harness
# failure and 130 interrupted (retry).
seq 0 $((shards - 1)) | parallel --jobs "$jobs" --joblog "$out/joblog" --resume-failed "$@" \
  "$arena" run "$config" --shard {}/"$shards" --out "$out/shard-{}" --progress never '>' "$out/shard-{}.txt"
shard_dirs=()
for i in $(seq 0 $((shards - 1))); do shard_dirs+=("$out/shard-$i"); done
rm -rf "$out/merged"
"$arena" merge "$out/merged" "${shard_dirs[@]}"
