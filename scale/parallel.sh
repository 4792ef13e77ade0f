#!/usr/bin/env bash
# Runs CONFIG as SHARDS shards with GNU parallel, JOBS at a time, then merges them into
# OUT/merged, byte-identical to an unsharded `arena run CONFIG` (docs/scale.md).
#
#   scale/parallel.sh CONFIG OUT [SHARDS] [JOBS] [-- extra parallel options]
#
# SHARDS defaults to 4, JOBS to 2; options after `--` go to GNU parallel. Re-running the
# script retries only the shards that failed (`--joblog` + `--resume-failed`); a finished
# shard has nothing to do, so retries never play a game twice.
# Many hosts (not tested here, one machine): `-- --sshloginfile hosts.txt --workdir .`,
# with OUT and CONFIG at the same paths on every host (a shared filesystem) and arena on
# each host's PATH; each shard's output file is written by the host that runs it.
# ARENA names the arena binary (default: `arena` on PATH).
set -euo pipefail
config=$1
out=$2
shift 2
shards=4
jobs=2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then shards=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then jobs=$1; shift; fi
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
