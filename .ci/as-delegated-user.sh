#!/usr/bin/env bash
# Runs a command as USER inside cgroup v1 hierarchies of its own (memory, pids, cpu,
# blkio, freezer), made and given to it by root: the delegation docs/sandbox.md
# describes, so an unprivileged arena enforces every layer of the sandbox.
# Usage (as root): .ci/as-delegated-user.sh USER COMMAND...
set -euo pipefail
user=$1; shift
for h in memory pids cpu blkio freezer; do
  own=$(awk -F: -v h="$h" '{n = split($2, c, ","); for (i = 1; i <= n; i++) if (c[i] == h) print $3}' /proc/self/cgroup)
  dir=/sys/fs/cgroup/$h${own%/}/$user
  mkdir -p "$dir"
  chown -R "$user" "$dir"
  echo $$ > "$dir/cgroup.procs"
done
exec runuser -u "$user" -- "$@"
