#!/bin/bash
# What an edit costs to rebuild: `cargo build --release` after touching one file, side by
# side, alternating, in two checkouts: OLD (e54aaed: one `arena` crate) and NEW (this
# tree: the crates). NEW is built twice: with its release profile, and with thin LTO
# (what `dist` is) in a target folder of its own. Prints wall and CPU seconds per build.
# Usage: OLD=/path/to/e54aaed NEW=/path/to/this benches/build-side-by-side.sh ROUNDS league|core
# (docs/benchmarks.md, "Builds").
set -u
OLD=${OLD:?the e54aaed checkout}; NEW=${NEW:-$(cd "$(dirname "$0")/.." && pwd)}
rounds=$1 kind=$2
build() { # dir file label env...
  local dir=$1 file=$2 label=$3; shift 3
  touch "$dir/$file"
  local start end cpu
  start=$(date +%s.%N)
  cpu=$( { (cd "$dir" && env "$@" /usr/bin/time -f "%U %S" cargo build --release -q); } 2>&1 | tail -1)
  end=$(date +%s.%N)
  printf "%s %s wall=%.1f cpu=%s load=%s\n" "$label" "$file" "$(echo "$end - $start" | bc)" \
    "$(echo "$cpu" | awk '{print $1+$2}')" "$(cut -d' ' -f1 /proc/loadavg)"
}
case $kind in
  league) old_file=arena/src/league/standings.rs new_file=arena/league/src/standings.rs ;;
  core) old_file=src/lib.rs new_file=src/lib.rs ;;
  *) echo "league or core" >&2; exit 2 ;;
esac
for _ in $(seq 1 "$rounds"); do
  build "$OLD" $old_file "e54aaed" X=1
  build "$NEW" $new_file "new(release)" X=1
  build "$NEW" $new_file "new(thin LTO)" CARGO_PROFILE_RELEASE_LTO=thin CARGO_TARGET_DIR="$NEW/target/thin-lto"
done
