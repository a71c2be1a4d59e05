#!/usr/bin/env bash
# The Docker path, run for real: builds the bridge image from docker/Dockerfile, starts docker/docker-compose.yml,
# and checks what a user relies on. On a machine that cannot pull the public images it first builds stand-ins
# (docker/e2e/standins.sh); docker/README.md, "Tested end to end", says what such a run proves and what it cannot.
#
#   docker/e2e/run.sh                 # from the repository root, as root (installs what it lacks with apt-get)
#   E2E_PROFILES="default cluster monitoring" docker/e2e/run.sh
#
# Checks, per profile: every service healthy (one-shots exited 0); a delayed record sent with kcat from the host as
# docker/README.md shows is delivered on time; the bridge's JVM killed with SIGKILL comes back by the restart policy
# with nothing lost; after `down` and `up` the pending records are still pending (the volumes); `down -v` at the end.
# The profile monitoring also: Prometheus ready with the shipped rule file's groups loaded and every rule evaluated
# without an error, both scrape targets (the bridge, redis_exporter) up, a bridge metric and redis_memory_used_bytes
# queryable, every query of the shipped dashboard valid PromQL, and Grafana healthy with the dashboard provisioned.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${E2E_WORK:-$root/target/docker-e2e}
profiles=${E2E_PROFILES:-default}
mkdir -p "$work"
cd "$root"

step() { printf '\n== %s  %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }

# ---- tools --------------------------------------------------------------------------------------------------------
missing=()
command -v docker > /dev/null || missing+=(docker.io)
command -v kcat > /dev/null || missing+=(kcat)
command -v jq > /dev/null || missing+=(jq)
docker compose version > /dev/null 2>&1 || command -v docker-compose > /dev/null || missing+=(docker-compose)
docker image inspect delay-bridge-e2e/debian:bookworm > /dev/null 2>&1 || command -v debootstrap > /dev/null \
    || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    step "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" > "$work/apt.log"
fi
# No engine answering: one of our own, on a socket of its own. At the default /var/run/docker.sock it would make the
# test kit of every build on this machine try containers first (Testcontainers), with images that are not there.
if ! docker info > /dev/null 2>&1; then
    export DOCKER_HOST=unix:///run/delay-bridge-e2e/docker.sock
    if ! docker info > /dev/null 2>&1; then
        step "starting dockerd on $DOCKER_HOST (log: $work/dockerd.log)"
        mkdir -p /run/delay-bridge-e2e
        nohup dockerd -H "$DOCKER_HOST" > "$work/dockerd.log" 2>&1 &
        dockerd_pid=$!
        trap 'kill "$dockerd_pid" 2> /dev/null || true' EXIT # ours: stopped at the end
        for _ in $(seq 60); do docker info > /dev/null 2>&1 && break; sleep 1; done
        docker info > /dev/null 2>&1 || fail "dockerd did not answer within 60 s; see $work/dockerd.log"
    fi
fi

# Compose v2 runs the file as it is. Debian packages only v1 (1.29), which knows neither the top-level `name:` nor
# `required:` in depends_on: it gets a copy without them, the project name given with -p instead.
compose_file=docker/docker-compose.yml
if docker compose version > /dev/null 2>&1; then
    compose() { docker compose -f "$compose_file" "$@"; }
    echo "compose: $(docker compose version)"
else
    compose_v1_file() { # <profile>: the v1 copy; `required: false` dependencies only where their profile is on
        python3 - "$compose_file" "$1" <<'EOF'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
profile = sys.argv[2]
spec.pop("name", None)
services = spec["services"]
for service in services.values():
    depends = service.get("depends_on")
    if isinstance(depends, dict):
        for name, condition in list(depends.items()):
            optional = condition.pop("required", True) is False
            if optional and profile not in services[name].get("profiles", []):
                del depends[name]
yaml.safe_dump(spec, sys.stdout, sort_keys=False)
EOF
    }
    compose() {
        docker-compose -p delay-bridge --project-directory "$root/docker" -f "$work/compose-$profile.yml" "$@"
    }
    echo "compose: $(docker-compose version --short) (v1: a copy of $compose_file without name: and required:)"
fi

# ---- images -------------------------------------------------------------------------------------------------------
step "stand-in images for the public ones the files name (real ones are used where present)"
E2E_WORK="$work" "$here/standins.sh"

step "docker build -f docker/Dockerfile -t delay-bridge:local . (log: $work/bridge-build.log)"
commit=$(git rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
# BuildKit (RUN --mount): the CLI's own when it has buildx, else a 20.10 CLI's built-in client
build_cli=docker
if ! docker buildx version > /dev/null 2>&1 && [ -x /usr/bin/docker ]; then build_cli=/usr/bin/docker; fi
started=$(now)
DOCKER_BUILDKIT=1 $build_cli build --progress=plain -f docker/Dockerfile --build-arg DELAY_COMMIT="$commit" \
    -t delay-bridge:local . > "$work/bridge-build.log" 2>&1 || { tail -30 "$work/bridge-build.log"; fail "image build"; }
printf 'built in %.0f s: %s\n' "$(echo "$(now) - $started" | bc)" \
    "$(docker image inspect -f '{{.Size}} bytes, user {{.Config.User}}, revision {{index .Config.Labels "org.opencontainers.image.revision"}}' delay-bridge:local)"
version=$(docker run --rm --entrypoint java delay-bridge:local -jar /app/delay-bridge.jar --version 2>&1 \
    | grep -v '^Picked up JAVA_TOOL_OPTIONS')
case "$version" in *"(commit $commit)"*) ;; *) fail "the image's jar does not name commit $commit: $version" ;; esac
echo "java -jar /app/delay-bridge.jar --version in the image: $version"

# ---- checks -------------------------------------------------------------------------------------------------------
container() { docker ps -aq --filter "label=com.docker.compose.project=delay-bridge" \
    --filter "label=com.docker.compose.service=$1" | head -1; }

await_healthy() { # every long-running service healthy, every one-shot exited 0, within 300 s
    local deadline=$(( $(date +%s) + 300 )) pending
    while true; do
        pending=""
        for id in $(docker ps -aq --filter label=com.docker.compose.project=delay-bridge); do
            local name state health code
            name=$(docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}}' "$id")
            state=$(docker inspect -f '{{.State.Status}}' "$id")
            health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$id")
            code=$(docker inspect -f '{{.State.ExitCode}}' "$id")
            if [ "$state" = exited ]; then
                [ "$code" = 0 ] || fail "$name exited $code: $(docker logs --tail 20 "$id" 2>&1)"
            elif [ "$health" != healthy ] && [ "$health" != none ]; then
                pending="$pending $name($state/$health)"
            fi
        done
        [ -n "$(container bridge)" ] && [ -z "$pending" ] && return 0
        [ "$(date +%s)" -lt "$deadline" ] || fail "not healthy within 300 s:$pending"
        sleep 2
    done
}

show_services() {
    for id in $(docker ps -aq --filter label=com.docker.compose.project=delay-bridge); do
        docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}}: {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}(exit {{.State.ExitCode}}){{end}}' "$id"
    done | sort | sed 's/^/  /'
}

watch_target() { # kcat on the target topic from the host, each line stamped with when it arrived
    : > "$work/delivered.txt"
    (kcat -C -b 127.0.0.1:9092 -t orders.timeout -o end -u -f 'key=%k headers=[%h] value=%s\n' 2> /dev/null \
        | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >> "$work/delivered.txt") &
    watcher=$!
    sleep 3 # kcat's assignment, before anything is sent
}

send() { # <key> <delay> <id>: as docker/README.md sends it
    echo "{\"order\":\"$1\"}" | kcat -P -b 127.0.0.1:9092 -t delay-intake -k "$1" \
        -H delay-target=orders.timeout -H delay-ms="$2" -H delay-id="$3"
}

await_delivered() { # <count> <seconds>: distinct keys delivered
    local deadline=$(( $(date +%s) + $2 ))
    until [ "$(delivered_keys | wc -l)" -ge "$1" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "only $(delivered_keys | wc -l) of $1 delivered in $2 s"
        sleep 1
    done
}
delivered_keys() { sed -n 's/^[0-9.]* key=\([^ ]*\) .*/\1/p' "$work/delivered.txt" | sort -u; }

message_state() { curl -s "http://127.0.0.1:8080/messages/$1" | jq -r '.state // "absent"'; }

prom() { curl -fsS "http://127.0.0.1:9090/api/v1/$1" "${@:2}"; } # <path> [curl args]: Prometheus's HTTP API

check_monitoring() { # Prometheus with the rule file and both targets up, the metrics queryable, Grafana's stand-in
    step "[monitoring] Prometheus, redis_exporter, Grafana"
    curl -fsS http://127.0.0.1:9090/-/ready > /dev/null || fail "prometheus not ready"
    echo "prometheus ready: $(prom status/buildinfo | jq -r '.data.version')"
    # the rule file's groups loaded, and every rule evaluated without an error (rules are evaluated every 15 s)
    local groups expected deadline=$(( $(date +%s) + 120 ))
    expected=$(python3 -c 'import sys, yaml; print(" ".join(g["name"] for g in yaml.safe_load(open(sys.argv[1]))["groups"]))' \
        monitoring/prometheus/delay-bridge-rules.yml)
    until groups=$(prom rules | jq -r '.data.groups[].name' | tr '\n' ' ') \
        && [ "${groups% }" = "$expected" ] \
        && [ "$(prom rules | jq '[.data.groups[].rules[] | select(.health != "ok")] | length')" = 0 ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "rule groups [${groups% }] of [$expected], not ok: $(prom rules \
            | jq -c '[.data.groups[].rules[] | select(.health != "ok") | {name, health, lastError}]')"
        sleep 2
    done
    echo "rule groups loaded: $(prom rules | jq -r '.data.groups[] | "\(.name) (\(.rules | length) rules)"' \
        | tr '\n' ' ')from $(prom rules | jq -r '[.data.groups[].file] | unique | join(" ")'), every rule evaluated" \
        "ok, firing: $(prom rules | jq -r '[.data.groups[].rules[] | select(.state == "firing") | .name] | join(" ") | if . == "" then "none" else . end')"
    # both scrape targets up (every 15 s)
    deadline=$(( $(date +%s) + 120 ))
    until [ "$(prom targets | jq -r '[.data.activeTargets[] | select(.health == "up") | .labels.job] | sort | join(" ")')" \
        = "delay-bridge redis" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "targets not up within 120 s: $(prom targets \
            | jq -c '[.data.activeTargets[] | {job: .labels.job, scrapeUrl, health, lastError}]')"
        sleep 2
    done
    echo "targets: $(prom targets | jq -r '[.data.activeTargets[] | "\(.labels.job) \(.scrapeUrl) \(.health)"] | join(", ")')"
    local query value
    for query in delay_pending redis_memory_used_bytes; do
        value=$(prom query --data-urlencode "query=$query" | jq -r '.data.result[0] | "\(.metric) \(.value[1])"')
        [ -n "$value" ] && [ "$value" != "null null" ] || fail "no result for $query"
        echo "query $query: $value"
    done
    # Grafana: a stand-in where the image is not present (docker/README.md says what it proves)
    echo "grafana /api/health: $(curl -fsS http://127.0.0.1:3000/api/health | jq -c .)"
    [ "$(curl -fsS -u admin:admin http://127.0.0.1:3000/api/search | jq -r '.[].uid')" = delay-bridge ] \
        || fail "grafana does not list the dashboard delay-bridge"
    echo "grafana /api/search: $(curl -fsS -u admin:admin http://127.0.0.1:3000/api/search | jq -c '[.[] | {uid, title}]')"
    docker logs "$(container grafana)" 2>&1 | grep '^provisioned' | sed 's/^/grafana: /'
}

check_dashboard_queries() { # every query of the shipped dashboard valid PromQL here; which ones have data
    local query value ok=0 empty=()
    while IFS= read -r query; do
        value=$(prom query --data-urlencode "query=${query//\$__rate_interval/1m}" 2>&1) \
            || fail "the dashboard's query $query: $value"
        if [ "$(echo "$value" | jq '.data.result | length')" -gt 0 ]; then ok=$((ok + 1)); else empty+=("$query"); fi
    done < <(jq -r '.. | objects | select(has("expr")) | .expr' monitoring/grafana/delay-bridge-dashboard.json)
    echo "the dashboard's $((ok + ${#empty[@]})) queries: all valid PromQL, $ok with data; without (nothing of the kind" \
        "happened yet): ${empty[*]:-none}"
}

run_profile() {
    profile=$1
    local args=()
    [ "$profile" = default ] || args=(--profile "$profile")
    if [ "$profile" = cluster ]; then
        export REDIS_URI=redis://redis-node-1:6379,redis-node-2:6379,redis-node-3:6379 REDIS_WAIT_REPLICAS=1
    else
        unset REDIS_URI REDIS_WAIT_REPLICAS
    fi
    declare -F compose_v1_file > /dev/null && compose_v1_file "$profile" > "$work/compose-$profile.yml"

    step "[$profile] up"
    compose "${args[@]}" down -v --remove-orphans > /dev/null 2>&1 || true
    started=$(now)
    compose "${args[@]}" up -d > "$work/up-$profile.log" 2>&1 || { cat "$work/up-$profile.log"; fail "up"; }
    await_healthy
    printf 'every service healthy %.0f s after up:\n' "$(echo "$(now) - $started" | bc)"
    show_services
    # a clean start logs nothing at WARN or above
    local warnings
    warnings=$(docker logs "$(container bridge)" 2>&1 | grep -E '^(WARN|ERROR) |[|]-(WARN|ERROR) ' || true)
    [ -z "$warnings" ] || fail "the bridge's start-up logged:\n$warnings"
    echo "the bridge's start-up log: $(docker logs "$(container bridge)" 2>&1 | wc -l) lines, none at WARN or ERROR"
    [ "$profile" != monitoring ] || check_monitoring

    step "[$profile] a record due in 10 s, sent with kcat from the host"
    watch_target
    sent=$(now)
    send order-42 10s order-42-timeout
    await_delivered 1 60
    local line at late
    line=$(grep ' key=order-42 ' "$work/delivered.txt" | head -1)
    at=${line%% *}
    late=$(echo "$at - $sent - 10" | bc)
    echo "delivered $(printf '%.2f' "$(echo "$at - $sent" | bc)") s after the send: ${line#* }"
    # on time: not before it is due (less 1 s for the two clocks: the broker's LogAppendTime and this host's), and
    # within 5 s after (the pump's tick, and kcat polling, on a busy machine)
    [ "$(echo "$late > -1 && $late < 5" | bc)" = 1 ] || fail "delivered $late s off its due time"

    step "[$profile] 20 records due in 15-34 s, then the bridge's JVM killed with SIGKILL"
    : > "$work/delivered.txt"
    for i in $(seq 20); do send "kill-$i" "$((14 + i))s" "kill-$i"; done
    local bridge pid restarts
    bridge=$(container bridge)
    restarts=$(docker inspect -f '{{.RestartCount}}' "$bridge")
    pid=$(docker inspect -f '{{.State.Pid}}' "$bridge")
    # the process itself, as a crash or the kernel's OOM killer would: `docker kill` counts as a manual stop, after
    # which Docker's restart policy does not restart the container
    kill -KILL "$pid"
    pid_killed_at=$(date +%s)
    echo "killed pid $pid ($bridge)"
    local deadline=$(( $(date +%s) + 120 ))
    until [ "$(docker inspect -f '{{.RestartCount}}' "$bridge")" -gt "$restarts" ] \
        && [ "$(docker inspect -f '{{.State.Health.Status}}' "$bridge")" = healthy ]; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "the bridge was not restarted and healthy within 120 s"
        sleep 1
    done
    echo "restarted by the policy (restart count $(docker inspect -f '{{.RestartCount}}' "$bridge")), healthy" \
        "$(echo "$(date +%s) - ${pid_killed_at}" | bc) s after the kill"
    await_delivered 20 120
    echo "all 20 delivered ($(grep -c ' key=kill-' "$work/delivered.txt") records for 20 keys):" \
        "$(delivered_keys | tr '\n' ' ')"
    # with records scheduled and delivered, the dashboard's rates have data (a meter appears on first use)
    [ "$profile" != monitoring ] || check_dashboard_queries
    kill "$watcher" 2> /dev/null || true

    step "[$profile] 5 records due in 1 h, then down and up"
    for i in $(seq 5); do send "later-$i" 1h "later-$i"; done
    deadline=$(( $(date +%s) + 60 ))
    for i in $(seq 5); do
        until [ "$(message_state "later-$i")" != absent ]; do
            [ "$(date +%s)" -lt "$deadline" ] || fail "later-$i not stored within 60 s"
            sleep 1
        done
    done
    echo "stored: $(for i in $(seq 5); do printf 'later-%s=%s ' "$i" "$(message_state "later-$i")"; done)"
    compose "${args[@]}" down > "$work/down-$profile.log" 2>&1
    echo "down: $(docker ps -aq --filter label=com.docker.compose.project=delay-bridge | wc -l) containers left," \
        "volumes: $(docker volume ls -q --filter label=com.docker.compose.project=delay-bridge | tr '\n' ' ')"
    compose "${args[@]}" up -d > "$work/up2-$profile.log" 2>&1 || { cat "$work/up2-$profile.log"; fail "up again"; }
    await_healthy
    local states
    states=$(for i in $(seq 5); do printf 'later-%s=%s ' "$i" "$(message_state "later-$i")"; done)
    echo "after up: $states"
    case "$states" in *absent*|*delivered*) fail "pending records lost across down/up: $states" ;; esac

    step "[$profile] down -v"
    compose "${args[@]}" down -v > /dev/null 2>&1
    echo "[$profile] passed"
}

for profile in $profiles; do run_profile "$profile"; done
step "passed: ${profiles}"
