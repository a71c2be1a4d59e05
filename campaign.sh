#!/usr/bin/env bash
# The fault campaign (README.md, "Fault campaign"): builds the project if needed, then runs the checker, which starts
# a real Kafka broker, a real redis-server and bridges as child JVMs, injects faults and prints a report.
#   ./campaign.sh --records 1000000 --faults full          # the full campaign (docs/reliability.md)
#   ./campaign.sh --records 20000 --faults none            # no faults: not a single duplicate
# Exit status 0: every guarantee held; 1: one was violated (the report says which); 2: a bad option.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p checker/target
if [[ "${CAMPAIGN_SKIP_BUILD:-}" != "1" ]]; then
  echo "fault campaign: building..." >&2
  ./mvnw -q -B -DskipTests -DskipITs install -pl checker -am
fi
if [[ ! -s checker/target/classpath || checker/pom.xml -nt checker/target/classpath ]]; then
  ./mvnw -q -B -pl checker dependency:build-classpath -Dmdep.outputFile="$PWD/checker/target/classpath" \
    -Dmdep.includeScope=runtime
fi
exec java -Xmx2g -cp "checker/target/classes:$(cat checker/target/classpath)" io.delaybridge.checker.FaultCampaign "$@"
