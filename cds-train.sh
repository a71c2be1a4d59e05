#!/usr/bin/env bash
# The training run of the bridge's class-data-sharing archive: builds the fat jar, starts it against a real broker and
# Redis (started here unless KAFKA_BOOTSTRAP_SERVERS / REDIS_URI are set), lets it deliver, and writes the classes it
# loaded to bridge/src/main/cds/delay-bridge.classlist, from which the build makes the archive
# (bridge/target/delay-bridge.jsa). Run it when the start-up path changed much; commit the list it writes.
set -euo pipefail
cd "$(dirname "$0")"
# the archive is not made here: its class list is what this run writes
./mvnw -B -q -pl bench -am package dependency:build-classpath -DskipTests -Dcds.skip=true -Dmdep.outputFile=target/classpath.txt
exec java -Xmx1g -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.delaybridge.bench.CdsTraining "$@"
