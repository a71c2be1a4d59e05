#!/bin/bash
# Profile the benchmark's Redis for 15 s inside one measured window, with perf (call graphs, 1,999 Hz).
#   bench/spikes/redis-profile/profile.sh sat   --scenario saturation --rates 20000 --steady-warmup-s 120
#   bench/spikes/redis-profile/profile.sh drain --scenario throughput
# "sat" records inside the 20,000/s step's window, "drain" 50 s into the throughput scenario's measured windows.
# Writes /tmp/perf-<label>.data (and the benchmark's output to /tmp/prof-<label>.log); then
#   perf report -i /tmp/perf-<label>.data --no-children --sort symbol --stdio -g none | python3 categories.py
set -euo pipefail
label=$1; shift
cd "$(dirname "$0")/../../.."
log=/tmp/prof-$label.log
BENCH_SKIP_BUILD=1 ./bench.sh "$@" > "$log" 2>&1 &
until grep -q "redis redis://" "$log"; do sleep 1; done
rpid=$(grep -o "(child, pid [0-9]*) (redis" "$log" | grep -o "[0-9]*")
echo "redis pid $rpid"
if [ "$label" = sat ]; then
  until grep -q "steady run: 20,000" "$log"; do sleep 1; done
  ws=$(grep "steady run: 20,000" "$log" | grep -o "window [0-9TZ:.-]*" | cut -d' ' -f2)
  start=$(date -d "$ws" +%s); now=$(date +%s); sleep $((start - now + 2))
else
  until [ "$(grep -c "of 2,000,000 delivered" "$log")" -ge 2 ]; do sleep 1; done
  sleep 50
fi
echo "perf start $(date -u +%T)"
perf record -F 1999 -g -p "$rpid" -o "/tmp/perf-$label.data" -- sleep 15 > /dev/null 2>&1
echo "perf end $(date -u +%T)"
wait
