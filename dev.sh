#!/usr/bin/env bash
# Development mode: builds the project if needed, then starts a real Kafka broker, a real redis-server and the
# bridge, with no Docker. Ctrl-C stops all three. Options go to DevMode (see --help there): e.g. ./dev.sh --fresh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .dev
echo "delay-bridge dev mode: building (first run downloads dependencies from Maven Central)..." >&2
./mvnw -q -B -DskipTests install -pl devmode -am
./mvnw -q -B -pl devmode dependency:build-classpath -Dmdep.outputFile="$PWD/.dev/classpath" -Dmdep.includeScope=runtime
# Dev mode runs as a job of its own (job control on), so that the terminal's Ctrl-C reaches this script alone and not
# the broker and redis-server that dev mode starts: dev mode stops them itself, after the bridge has committed and
# handed its shards back. The script passes Ctrl-C, SIGTERM and a closed terminal on to it and waits until it is done.
set -m
# @bridge/jvm.options: the bridge's shipped JVM options (how the JIT compiles during start-up), as README starts it
java -Xmx1g @bridge/jvm.options -cp "devmode/target/classes:$(cat .dev/classpath)" io.delaybridge.devmode.DevMode "$@" &
dev_mode=$!
trap 'kill -TERM "$dev_mode" 2>/dev/null || true' INT TERM HUP
while :; do
    status=0
    wait "$dev_mode" || status=$?
    kill -0 "$dev_mode" 2>/dev/null || break
done
exit "$status"
