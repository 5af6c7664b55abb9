#!/usr/bin/env bash
# A real single-node SLURM (with munge) on this machine, for colosseum_nb's cluster tests and for users who
# want to try the SLURM path of `colosseum_nb.cluster` on one computer.
#
#   tools/slurm_localhost.sh start    install Debian's packages if needed (root), write slurm.conf, start
#                                     munged, slurmctld and slurmd, wait until the node is idle
#   tools/slurm_localhost.sh status   say what runs; exit 0 when the node accepts jobs
#   tools/slurm_localhost.sh stop     cancel the jobs, stop the daemons this script started (by pid)
#
# State, spool, logs and pid files live in $SLURM_LOCALHOST_DIR (default /tmp/slurm_localhost).
# /etc/slurm/slurm.conf is written by this script (marked as such); a slurm.conf it did not write is moved
# aside to slurm.conf.before-colosseum_nb first. Needs root (the daemons and apt-get).
set -uo pipefail
DIR=${SLURM_LOCALHOST_DIR:-/tmp/slurm_localhost}
CONF=/etc/slurm/slurm.conf
MARK='# written by colosseum_nb tools/slurm_localhost.sh'
NODE=$(hostname -s)
STARTED=$DIR/started.pids   # "<name> <pid>" of every daemon this script started

say() { echo "slurm_localhost: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { [ -s "$1" ] && cat "$1" 2>/dev/null; }

install_packages() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
    && command -v munged >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "SLURM is not installed and installing it needs root (apt-get install munge slurmctld slurmd slurm-client)"
  command -v apt-get >/dev/null || die "no apt-get: install munge, slurmctld, slurmd and slurm-client with your system's package manager"
  say "installing munge slurmctld slurmd slurm-client (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$DIR/apt.log" 2>&1 || { tail -5 "$DIR/apt.log" >&2; die "apt-get update failed (see $DIR/apt.log)"; }
  apt-get install -y -qq --no-install-recommends munge slurmctld slurmd slurm-client >>"$DIR/apt.log" 2>&1 \
    || { tail -5 "$DIR/apt.log" >&2; die "apt-get install failed (see $DIR/apt.log)"; }
}

write_conf() {
  local cpus mem
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {m=int($2/1024*0.9); if (m>20000) m=20000; print m}' /proc/meminfo)
  mkdir -p /etc/slurm "$DIR/state" "$DIR/spool" "$DIR/log"
  if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
    say "moving the existing $CONF aside to $CONF.before-colosseum_nb"
    mv "$CONF" "$CONF.before-colosseum_nb" || die "cannot move $CONF aside"
  fi
  cat >"$CONF" <<EOF
$MARK
ClusterName=localhost
SlurmctldHost=$NODE(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
SchedulerType=sched/backfill
SlurmUser=root
SlurmdUser=root
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

record() { echo "$1 $2" >>"$STARTED"; }

start_munge() {
  local pidf=/run/munge/munged.pid
  if alive "$(pid_of $pidf)"; then return 0; fi
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null
  [ -s /etc/munge/munge.key ] || { mungekey -c -f >/dev/null 2>&1 || die "no /etc/munge/munge.key and mungekey failed"; chown munge:munge /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged || die "munged did not start"
  for _ in $(seq 50); do alive "$(pid_of $pidf)" && break; sleep 0.1; done
  alive "$(pid_of $pidf)" || die "munged did not write $pidf"
  record munged "$(pid_of $pidf)"
  munge -n | unmunge >/dev/null || die "munge does not work (munge -n | unmunge failed)"
}

start_daemon() { # name
  local name=$1 pidf=$DIR/$1.pid
  if alive "$(pid_of "$pidf")"; then return 0; fi
  "$name" || die "$name did not start (see $DIR/log/$name.log)"
  for _ in $(seq 100); do alive "$(pid_of "$pidf")" && break; sleep 0.1; done
  alive "$(pid_of "$pidf")" || die "$name did not write $pidf (see $DIR/log/$name.log)"
  record "$name" "$(pid_of "$pidf")"
}

node_state() { sinfo -h -n "$NODE" -o %t 2>/dev/null | head -1; }

wait_idle() {
  local st=""
  for i in $(seq 150); do
    st=$(node_state)
    case "$st" in
      idle*|mix*|alloc*) return 0 ;;
      down*|drain*|drng*|fail*) scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 ;;
    esac
    sleep 0.2
  done
  die "node $NODE is '${st:-unknown}' after 30 s (see $DIR/log/slurmd.log and slurmctld.log)"
}

cmd_start() {
  local t0=$SECONDS
  mkdir -p "$DIR"
  install_packages
  write_conf
  start_munge
  start_daemon slurmctld
  start_daemon slurmd
  wait_idle
  say "node $NODE is $(node_state) (partition debug, $(nproc) CPUs) after $((SECONDS - t0)) s; state in $DIR"
}

cmd_status() {
  local ok=0
  for d in munged:/run/munge/munged.pid slurmctld:$DIR/slurmctld.pid slurmd:$DIR/slurmd.pid; do
    local name=${d%%:*} pidf=${d#*:} pid
    pid=$(pid_of "$pidf")
    if alive "$pid"; then echo "$name running (pid $pid)"; else echo "$name not running"; ok=1; fi
  done
  if [ $ok = 0 ]; then
    local st; st=$(node_state)
    echo "node $NODE: ${st:-unknown}"
    case "$st" in idle*|mix*|alloc*) ;; *) ok=1 ;; esac
  fi
  return $ok
}

stop_pid() { # name pid
  local name=$1 pid=$2
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 150); do alive "$pid" || { say "stopped $name (pid $pid)"; return 0; }; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null; say "killed $name (pid $pid) after 15 s"
}

cmd_stop() {
  [ -s "$STARTED" ] || { say "nothing to stop (no $STARTED)"; return 0; }
  command -v scancel >/dev/null && alive "$(pid_of "$DIR/slurmctld.pid")" && scancel --user="$(id -un)" 2>/dev/null \
    && for _ in $(seq 100); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  # the daemons in reverse order of their start: slurmd, slurmctld, munged
  tac "$STARTED" | while read -r name pid; do stop_pid "$name" "$pid"; done
  rm -f "$STARTED"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
