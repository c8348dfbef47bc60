#!/bin/bash
# A connector whose name server stops answering, measured through `change-bridge start` (not
# part of `npm run bench`: it needs root and Linux mount namespaces). Run from the repository:
#   sudo unshare -m bench/silent-dns/connector.sh
# In its own mount namespace it points /etc/resolv.conf at dns-server.mjs, runs the simulator
# on 127.0.0.1:4010 and `start` polling it as http://connector.example:4010 every second, and
# after 8 s makes the name server stop answering for that name. For 20 s it times an admin
# read of the store once a second, then prints them and how long the bridge took to exit after
# SIGTERM.
set -eu
source "$(dirname "$0")/namespace.sh"
node bin/change-bridge.js simulator --port 4010 --activity 20 > /dev/null 2>&1 & pids+=($!)
sleep 2
CONNECTOR_BASE_URL=http://connector.example:4010 CONNECTOR_CLIENT_TOKEN=sim-client-token \
  CONNECTOR_ACCESS_TOKEN=sim-access-token \
  node bin/change-bridge.js start --data-dir "$work/data" --port 4393 --poll-interval 1s > "$work/bridge.log" 2>&1 &
bridge=$!
for _ in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:4393/subscriptions && break; sleep 0.5; done
sleep 8
echo connector.example > "$work/silent"
printf 'admin reads (GET /events?limit=5) while the name is silent, s:'
for _ in $(seq 1 20); do
  printf ' %s' "$(curl -s -o /dev/null -w '%{time_total}' 'http://127.0.0.1:4393/events?limit=5')"
  sleep 1
done
echo
stop_and_time "$bridge"
