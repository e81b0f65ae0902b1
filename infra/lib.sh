# shellcheck shell=bash
# Helpers shared by infra/redis.sh, infra/kafka.sh and infra/s3.sh (sourced, not run).
# Each engine runs as a private process started by its script: pid file under .tools/<engine>/,
# listening on 127.0.0.1 only, stopped by that pid and nothing else.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
TOOLS="$REPO/.tools" # used by the scripts that source this file
export TOOLS
# load_env FILE: exports FILE's KEY=value lines; a variable already set in the environment wins
load_env() {
  local k v
  while IFS='=' read -r k v; do
    [[ "$k" =~ ^[A-Z_][A-Z0-9_]*$ ]] || continue
    [[ -n "${!k+x}" ]] || export "$k=$v"
  done <"$1"
}
# shared settings
load_env "$REPO/infra/distributed.env"

log() { echo "$ENGINE.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# pid_alive PIDFILE: the pid in PIDFILE is a live process
pid_alive() {
  local pid
  [[ -f "$1" ]] || return 1
  pid="$(cat "$1" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.5 s
wait_for() {
  local secs="$1" i
  shift
  for ((i = 0; i < secs * 2; i++)); do
    if "$@"; then return 0; fi
    sleep 0.5
  done
  return 1
}

# stop_pid PIDFILE SECONDS: SIGTERM the recorded pid, SIGKILL after SECONDS, remove the file
stop_pid() {
  local file="$1" secs="$2" pid i
  if ! pid_alive "$file"; then
    rm -f "$file"
    return 0
  fi
  pid="$(cat "$file")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid still running after ${secs}s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

# apt_install PACKAGE...: installs Debian packages (once per machine)
apt_install() {
  log "installing Debian packages: $*"
  as_root apt-get update -qq >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# The command switch every engine script ends with; the script defines start, stop and url,
# and PIDFILE.
engine_main() {
  case "${1:-}" in
    start | stop | url) "$1" ;;
    status)
      if pid_alive "$PIDFILE"; then
        echo "running: $(url) (pid $(cat "$PIDFILE"))"
      else
        echo "stopped"
        return 3
      fi
      ;;
    *)
      echo "usage: $0 {start|stop|status|url}" >&2
      exit 2
      ;;
  esac
}
