#!/bin/bash
# Receivers whose name servers hang, measured through `change-bridge start` (not part of
# `npm run bench`: it needs root and Linux mount namespaces). Run from the repository:
#   sudo unshare -m bench/silent-dns/run.sh
# In its own mount namespace it points /etc/resolv.conf at dns-server.mjs, starts the bridge
# (its simulator's activity, 1 s polling) with three subscribers, receiver.example (healthy) and
# hang1/hang2.example, and after 5 s makes the name server stop answering for the last two. Each
# receiver closes its connections, so every delivery looks its host up. It prints what the
# healthy receiver got in the next 30 s (detection to arrival), then how long the bridge took to
# exit after SIGTERM.
set -eu
source "$(dirname "$0")/namespace.sh"
node "$here/receiver.mjs" 9321 > "$work/healthy.log" & pids+=($!)
node "$here/receiver.mjs" 9322 > /dev/null & pids+=($!)
node "$here/receiver.mjs" 9323 > /dev/null & pids+=($!)
node bin/change-bridge.js start --data-dir "$work/data" --port 4392 --poll-interval 1s > "$work/bridge.log" 2>&1 &
bridge=$!
for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:4392/subscriptions && break; sleep 0.5; done
for target in receiver.example:9321 hang1.example:9322 hang2.example:9323; do
  node bin/change-bridge.js subscriptions add --url "http://$target/hook" --api http://127.0.0.1:4392 > /dev/null
done
sleep 5
echo "hang1.example hang2.example" > "$work/silent"
from=$(date +%s%3N)
sleep 30
to=$(date +%s%3N)
awk -v from="$from" -v to="$to" '$1 >= from && $1 < to { print $2 }' "$work/healthy.log" | sort -n |
  awk '{ lag[NR] = $1 } END { printf "healthy receiver, 30 s beside two silent names: %d deliveries, detection to arrival median %d ms, max %d ms\n", NR, lag[int((NR + 1) / 2)], lag[NR] }'
stop_and_time "$bridge"
