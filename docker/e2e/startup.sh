#!/usr/bin/env bash
# The image as a user gets it, measured: its size and user, a start on a read-only root file system, its health
# check, and start-up to first delivery in a container beside the same jar started on the host as README says
# (docs/operations.md, "The image"). Both talk to one Kafka broker and one redis-server on this host (the test kit's
# broker, Debian's redis-server), the container on the host's network.
#
#   docker/e2e/startup.sh [image]        # from the repository root, after ./mvnw install -pl testkit -am; default image
#                                        # delay-bridge (docker build -f docker/Dockerfile -t delay-bridge .)
#
# Each variant starts once unmeasured (it creates its topics), then ROUNDS times (default 5) alternately: one record due
# now waits in the intake; the clock starts; the bridge starts (`docker run`, or `java ... -jar`); the record's
# append time on its target (a LogAppendTime topic) ends the measure; the bridge is stopped by SIGTERM.
set -euo pipefail
image=${1:-delay-bridge}
rounds=${ROUNDS:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${E2E_WORK:-$root/target/docker-startup}
. "$root/docker/e2e/host-servers.sh"

# ---- the image, and the same jar on the host with an archive made by the host's java -----------------------------
size=$(docker image inspect "$image" -f '{{.Size}}')
user=$(docker image inspect "$image" -f '{{.Config.User}}')
labels=$(docker image inspect "$image" -f '{{json .Config.Labels}}')
id=$(docker create "$image")
docker cp "$id:/app/delay-bridge.jar" "$work/delay-bridge.jar" && docker rm "$id" > /dev/null
java -Xshare:dump -Xlog:cds=error -Xlog:gc+verify=error \
    -XX:SharedClassListFile=bridge/src/main/cds/delay-bridge.classlist \
    -XX:SharedArchiveFile="$work/delay-bridge.jsa" -cp "$work/delay-bridge.jar" > /dev/null
echo "image $image: $size bytes ($((size / 1000000)) MB), user $user, labels $labels"
echo "java in the image: $(docker run --rm --entrypoint java "$image" -version 2>&1 | grep version | head -1)"
echo "java on the host:  $(java -version 2>&1 | head -1)"

# ---- one start ----------------------------------------------------------------------------------------------------
# start <variant> <round>: prints the milliseconds from the start command to the first delivery
start() {
    local variant=$1 round=$2 started first
    bridge_env "$variant"
    due_now "$variant" "$round"
    started=$(ms)
    if [ "$variant" = container ]; then
        local flags=()
        for e in "${env[@]}"; do flags+=(-e "$e"); done
        docker run -d --name "startup-$round" --network host --read-only --tmpfs /tmp:exec "${flags[@]}" "$image" > /dev/null
    else
        (cd bridge && exec env "${env[@]}" java @jvm.options -XX:SharedArchiveFile="$work/delay-bridge.jsa" \
            -jar "$work/delay-bridge.jar" server config.yml > "$work/host-$round.log" 2>&1) &
        bridge_pid=$!
    fi
    first=$(first_delivery "$variant" "$round" "$started") || exit 1
    if [ "$variant" = container ]; then
        if [ "$round" = 1 ]; then
            for _ in $(seq 120); do
                [ "$(docker inspect -f '{{.State.Health.Status}}' "startup-$round")" = healthy ] && break; sleep 1
            done
            echo "container health after $(( ($(ms) - started) / 1000 )) s: $(docker inspect -f '{{.State.Health.Status}}' "startup-$round")" >&2
        fi
        docker logs "startup-$round" > "$work/container-$round.log" 2>&1
        docker stop -t 30 "startup-$round" > /dev/null && docker rm "startup-$round" > /dev/null
    else
        kill -TERM "$bridge_pid" && wait "$bridge_pid" || true
    fi
    echo "$first"
}
for variant in container host; do
    start "$variant" warm-up > /dev/null
done
declare -A times
for round in $(seq "$rounds"); do
    for variant in container host; do
        t=$(start "$variant" "$round")
        times[$variant]="${times[$variant]:-} $t"
        echo "round $round, $variant: first delivery $t ms after the start command"
    done
done
for variant in container host; do
    echo "$variant: median $(echo "${times[$variant]}" | median) ms of $rounds starts (${times[$variant]# })"
done
warnings=$(cat "$work"/container-*.log | grep -cE '\b(WARN|ERROR)\b' || true)
echo "container logs (read-only root, /tmp a tmpfs with exec): $warnings lines at WARN or ERROR"

# ---- a read-only root without a writable /tmp ---------------------------------------------------------------------
# The Kafka client unpacks its compression codec's native library (snappy, config.yml's default) into java.io.tmpdir.
echo "round bare" | kcat -P -b "$bootstrap" -t startup-container-intake -k bare \
    -H delay-target=startup-container-target -H delay-ms=0
docker run -d --name startup-bare --network host --read-only \
    -e KAFKA_BOOTSTRAP_SERVERS="$bootstrap" -e REDIS_URI="redis://127.0.0.1:$redis_port" \
    -e DELAY_INTAKE_TOPIC=startup-container-intake -e DELAY_DEADLETTER_TOPIC=startup-container-deadletter \
    -e DELAY_GROUP_ID=startup-container -e DELAY_INSTANCE_ID=startup-container-1 -e DELAY_KEY_PREFIX=container \
    -e DELAY_BIND_HOST=127.0.0.1 -e DELAY_HTTP_PORT="$(free_port)" -e DELAY_ADMIN_PORT="$(free_port)" "$image" > /dev/null
bare=
deadline=$(( $(date +%s) + 30 ))
while [ -z "$bare" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    bare=$(kcat -C -b "$bootstrap" -t startup-container-target -o beginning -e -q -f '%k\n' 2> /dev/null | grep -x bare || true)
    sleep 0.1
done
docker logs startup-bare > "$work/container-bare.log" 2>&1
docker rm -f startup-bare > /dev/null
echo "read-only root, no tmpfs: $([ -n "$bare" ] && echo delivered || echo 'NOT delivered within 30 s'); log lines at WARN or ERROR:"
grep -E '\b(WARN|ERROR)\b' "$work/container-bare.log" | cut -c1-220 | sort -u | head -5
