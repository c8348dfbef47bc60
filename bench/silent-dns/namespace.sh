# Sourced by run.sh and connector.sh, inside `unshare -m`: a work folder ($work), this mount
# namespace's /etc/resolv.conf pointed at dns-server.mjs on 127.0.0.1, which answers every name
# but those written to $work/silent; $pids holds the processes to stop at the end.
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
printf 'nameserver 127.0.0.1\n' > "$work/resolv.conf"
mount --bind "$work/resolv.conf" /etc/resolv.conf
: > "$work/silent"
pids=()
node "$here/dns-server.mjs" "$work/silent" & pids+=($!)

# Sends SIGTERM to the bridge (pid $1), prints how long it took to exit, and ends the rest.
stop_and_time() {
  local stopping
  stopping=$(date +%s%N)
  kill -TERM "$1"
  wait "$1" || true
  echo "exit $(( ($(date +%s%N) - stopping) / 1000000 )) ms after SIGTERM"
  kill "${pids[@]}"
  rm -rf "$work"
}
