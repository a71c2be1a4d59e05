#!/usr/bin/env bash
# Development mode: builds the project if needed, then starts a real Kafka broker, a real redis-server and the
# bridge, with no Docker. Ctrl-C stops all three. Options go to DevMode (see --help there): e.g. ./dev.sh --fresh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p .dev
echo "delay-bridge dev mode: building (first run downloads dependencies from Maven Central)..." >&2
./mvnw -q -B -DskipTests install -pl devmode -am
./mvnw -q -B -pl devmode dependency:build-classpath -Dmdep.outputFile="$PWD/.dev/classpath" -Dmdep.includeScope=runtime
exec java -Xmx1g -cp "devmode/target/classes:$(cat .dev/classpath)" io.delaybridge.devmode.DevMode "$@"
