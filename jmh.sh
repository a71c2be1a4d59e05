#!/usr/bin/env bash
# Builds the benchmark module (and what it needs) in the reactor, then runs the JMH micro-benchmarks of the per-record
# code (bench/.../HotPathBenchmark.java). Arguments go to JMH (org.openjdk.jmh.Main) after a short default run:
#   ./jmh.sh                                    every benchmark, 1 fork, 3 x 1 s warm-up, 5 x 1 s measured (~1.5 min)
#   ./jmh.sh -prof gc                           the same, with bytes allocated per operation (gc.alloc.rate.norm)
#   ./jmh.sh -f 3 -wi 5 -i 10 'intake.*'        options given replace the defaults; a regex picks benchmarks
#   ./jmh.sh -h                                 JMH's own options
# JMH_SKIP_BUILD=1 skips the Maven build; JMH_JVM adds options to the JMH runner's JVM. Nothing is installed into
# ~/.m2: built in one reactor, the class path names the project's own jars in */target/.
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${JMH_SKIP_BUILD:-}" != "1" || ! -s bench/target/jmh-classpath.txt ]]; then
  # offline first (fast); a fresh machine may lack a plugin or JMH itself, so fall back to fetching them
  BUILD=(-B -q -pl bench -am package dependency:build-classpath -DskipTests -DskipITs
    -Dmdep.outputFile=target/jmh-classpath.txt -Dmdep.includeScope=runtime)
  ./mvnw -o "${BUILD[@]}" >/dev/null 2>&1 || ./mvnw "${BUILD[@]}"
fi
# JMH refuses an option given twice: a default goes in only when the arguments do not set it themselves
DEFAULTS=()
for pair in "-f 1" "-wi 3" "-w 1s" "-i 5" "-r 1s"; do
  opt="${pair%% *}"
  given=0
  for arg in "$@"; do [[ "$arg" == "$opt" ]] && given=1; done
  [[ $given == 1 ]] || DEFAULTS+=("$opt" "${pair#* }")
done
exec java ${JMH_JVM:-} -cp "bench/target/classes:$(cat bench/target/jmh-classpath.txt)" org.openjdk.jmh.Main \
  "${DEFAULTS[@]}" "$@"
