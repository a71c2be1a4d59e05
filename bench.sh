#!/usr/bin/env bash
# Builds the bridge's fat jar and the benchmark, then runs it. Arguments go to DelayBenchmark, e.g.
#   ./bench.sh --help                           every option with its default
#   ./bench.sh                                  every scenario with default sizes (30 minutes or more)
#   ./bench.sh --scenario steady --steady-rate 5000 --steady-seconds 120
# KAFKA_BOOTSTRAP_SERVERS / REDIS_URI point it at running servers; otherwise it starts its own.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${BENCH_SKIP_BUILD:-}" != "1" ]]; then
  ./mvnw -B -q -o install -DskipTests -DskipITs -pl bench -am || ./mvnw -B -q install -DskipTests -DskipITs -pl bench -am
fi
CP="$(cat bench/target/classpath.txt 2>/dev/null || true)"
if [[ -z "$CP" || "${BENCH_SKIP_BUILD:-}" != "1" ]]; then
  # offline first (fast); a fresh machine has no dependency plugin yet, so fall back to fetching it
  ./mvnw -B -q -o -pl bench dependency:build-classpath -Dmdep.outputFile=target/classpath.txt >/dev/null 2>&1 ||
    ./mvnw -B -q -pl bench dependency:build-classpath -Dmdep.outputFile=target/classpath.txt >/dev/null
  CP="$(cat bench/target/classpath.txt)"
fi
# the reactor's own classes first: the class path file names the project's jars in ~/.m2, which BENCH_SKIP_BUILD=1
# leaves as they were at the last install (the store probes of "limits" then measured old scripts)
OWN="bench/target/classes:bridge/target/classes:schemas/target/classes:testkit/target/classes"
exec java ${BENCH_JVM:--Xmx2g -XX:+UseParallelGC} -cp "$OWN:$CP" io.delaybridge.bench.DelayBenchmark "$@"
