#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying scale/slurm.sbatch for real
# (arena/tests/scale.rs runs it; .ci/run starts it). Needs root and Debian's packages:
#   apt-get install --no-install-recommends slurmctld slurmd slurm-client munge
#   scale/slurm-local.sh start    # munged, slurmctld, slurmd; waits until the node is idle
#   scale/slurm-local.sh status   # exit 0 when the cluster answers with an idle node
#   scale/slurm-local.sh stop     # ends the daemons this script started
# `start` does nothing when a cluster already answers. It writes /etc/slurm/slurm.conf (the
# path the clients read), this host as controller and as the one node, with the CPUs and
# memory `slurmd -C` finds; no cgroups (proctrack/linuxproc, task/none), no accounting.
# It never overwrites a slurm.conf that it did not write. Logs and state live in
# $ARENA_SLURM_DIR (default /var/lib/arena-slurm).
set -euo pipefail

state=${ARENA_SLURM_DIR:-/var/lib/arena-slurm}
conf=/etc/slurm/slurm.conf
marker="# Written by Arena's scale/slurm-local.sh"
wait_s=${ARENA_SLURM_WAIT:-60}

say() { echo "slurm-local: $*" >&2; }

# The node's state as sinfo reports it ("idle", "mixed", "down*", ...), empty if no answer.
node_state() { timeout 10 sinfo -h -N -o %T 2>/dev/null | head -n1 || true; }

answers() {
  case "$(node_state)" in
    idle* | mixed* | alloc* | allocated* | completing*) return 0 ;;
    *) return 1 ;;
  esac
}

stop_pid() { # name pidfile
  local pid
  [ -f "$2" ] || return 0
  pid=$(cat "$2" 2>/dev/null || true)
  # Only the daemon the file names: a stale file's pid may be another process's now.
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$2"
}

stop_daemons() {
  stop_pid slurmd "$state/slurmd.pid"
  stop_pid slurmctld "$state/slurmctld.pid"
  stop_pid munged "$state/munge/munged.pid"
}

start() {
  if answers; then
    say "a cluster already answers (sinfo: $(node_state)); nothing to do"
    return 0
  fi
  [ "$(id -u)" = 0 ] || { say "must run as root"; exit 1; }
  for p in munged slurmctld slurmd sinfo sbatch scontrol; do
    command -v "$p" >/dev/null 2>&1 || {
      say "$p is missing (apt-get install --no-install-recommends slurmctld slurmd slurm-client munge)"
      exit 1
    }
  done
  if [ -f "$conf" ] && ! head -n1 "$conf" | grep -qF "$marker"; then
    say "$conf exists and was not written by this script: not touching it"
    exit 1
  fi
  # Daemons of an earlier start that no longer answer.
  stop_daemons
  mkdir -p "$state/ctld" "$state/d" /etc/slurm

  # munge: a key if the package made none, the daemon as the munge user.
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown munge:munge /etc/munge /etc/munge/munge.key
  chmod 0700 /etc/munge
  chmod 0400 /etc/munge/munge.key
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
  install -d -o munge -g munge -m 0700 "$state/munge"
  runuser -u munge -- munged --force --pid-file="$state/munge/munged.pid" \
    --log-file="$state/munge/munged.log" </dev/null >/dev/null 2>&1 || {
    say "munged did not start:"; tail -n 20 "$state/munge/munged.log" >&2 || true; exit 1
  }
  for _ in $(seq 50); do
    [ -S /run/munge/munge.socket.2 ] && break
    sleep 0.1
  done
  munge -n </dev/null | unmunge >/dev/null || { say "munge does not work"; exit 1; }

  # slurm.conf: this host is the controller and the one node, as slurmd -C sees it.
  local host hw
  host=$(hostname -s)
  hw=$(slurmd -C | head -n1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
  cat >"$conf" <<EOF
$marker (docs/scale.md); it removes this file on stop.
ClusterName=arena
MailProg=/bin/true
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=30
$hw NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # -c: a clean start, no jobs or node state from an earlier cluster.
  slurmctld -c </dev/null >/dev/null 2>&1 || {
    say "slurmctld did not start:"; tail -n 20 "$state/slurmctld.log" >&2 || true; exit 1
  }
  slurmd </dev/null >/dev/null 2>&1 || {
    say "slurmd did not start:"; tail -n 20 "$state/slurmd.log" >&2 || true; exit 1
  }
  local s=""
  for _ in $(seq $((wait_s * 2))); do
    s=$(node_state)
    case "$s" in
      idle*) say "up: node $host idle ($hw)"; return 0 ;;
      down* | drain*) timeout 10 scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  say "the node is not idle after ${wait_s}s (sinfo: ${s:-no answer}); logs in $state"
  tail -n 20 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop)
    if [ -f "$conf" ] && head -n1 "$conf" | grep -qF "$marker"; then
      answers && { timeout 10 scancel --user=root 2>/dev/null || true; }
      stop_daemons
      rm -f "$conf"
    else
      stop_daemons
    fi
    ;;
  status) answers ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
