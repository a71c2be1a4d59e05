#!/usr/bin/env bash
# The fault campaign (README.md, "Fault campaign"): compiles the project, then runs the checker, which starts a real
# Kafka broker, a real redis-server and bridges as child JVMs, injects faults and prints a report.
#   ./campaign.sh --records 1000000 --faults full          # the full campaign (docs/reliability.md)
#   ./campaign.sh --records 20000 --faults none            # no faults: not a single duplicate
# Exit status 0: every guarantee held; 1: one was violated (the report says which); 2: a bad option.
# The project's own modules come from their target/classes, never from ~/.m2 (another checkout may have installed
# other builds there). CAMPAIGN_SKIP_BUILD=1 skips the compile.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${CAMPAIGN_SKIP_BUILD:-}" != "1" || ! -s checker/target/classpath \
      || -n "$(find . -name pom.xml -newer checker/target/classpath)" ]]; then
  echo "fault campaign: compiling..." >&2
  # -am: this checkout's modules (their target/classes), not whatever ~/.m2 holds; checker, built last, writes the file
  ./mvnw -q -B compile dependency:build-classpath -pl checker -am \
    -Dmdep.outputFile="$PWD/checker/target/classpath" -Dmdep.includeScope=runtime
fi
classpath="$(tr ':' '\n' < checker/target/classpath | grep -v '/io/delaybridge/' | paste -sd: -)"
modules="$PWD/checker/target/classes:$PWD/bridge/target/classes:$PWD/schemas/target/classes:$PWD/testkit/target/classes"
exec java -Xmx2g -cp "$modules:$classpath" io.delaybridge.checker.FaultCampaign "$@"
