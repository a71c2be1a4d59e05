#!/usr/bin/env bash
# Which runtime starts the bridge sooner: Java 17 with the class-data archive (as shipped) or a newer JDK with its
# ahead-of-time cache (JDK 24+: -XX:AOTCacheOutput on a training start, then -XX:AOTCache). Start-up to first delivery
# on this host, as docker/e2e/startup.sh measures it for the image: one record due now waits in the intake; the clock
# starts; the bridge starts (`java @jvm.options ... -jar delay-bridge.jar server config.yml`, as README says); the
# record's append time on its target (a LogAppendTime topic) ends the measure; the bridge is stopped by SIGTERM.
#
#   docker/e2e/runtimes.sh [newer-java-home]   # from the repository root, after ./mvnw install -DskipTests (the fat
#                                              # jar and its archive); default /usr/lib/jvm/temurin-25-jdk-amd64
#
# Three runtimes: java17 (with the archive), newer (with its cache), newer-bare (without it, to show what the cache
# does). Each runtime starts once unmeasured (it creates its topics), the newer JDK once more to write its cache (a start
# that delivers a record, as the archive's class list was trained), then ROUNDS
# times (default 5) alternately. docs/operations.md ("The runtime") gives the figures.
set -euo pipefail
newer=${1:-/usr/lib/jvm/temurin-25-jdk-amd64}
rounds=${ROUNDS:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${E2E_WORK:-$root/target/runtimes}
. "$root/docker/e2e/host-servers.sh"

# ---- the jar, its archive by Java 17, and the newer JDK ------------------------------------------------------------
cp bridge/target/delay-bridge.jar "$work/delay-bridge.jar"
java -Xshare:dump -Xlog:cds=error -Xlog:gc+verify=error \
    -XX:SharedClassListFile=bridge/src/main/cds/delay-bridge.classlist \
    -XX:SharedArchiveFile="$work/delay-bridge.jsa" -cp "$work/delay-bridge.jar" > /dev/null
echo "java17: $(java -version 2>&1 | head -1), with the class-data archive"
echo "newer:  $("$newer/bin/java" -version 2>&1 | head -1), with an AOT cache made by its warm-up start"

# ---- one start ----------------------------------------------------------------------------------------------------
# start <variant> <round>: prints the milliseconds from the start command to the first delivery
start() {
    local variant=$1 round=$2 started first
    bridge_env "$variant"
    due_now "$variant" "$round"
    started=$(ms)
    local jvm=(java @jvm.options -XX:SharedArchiveFile="$work/delay-bridge.jsa")
    if [ "$variant" = newer-bare ]; then
        jvm=("$newer/bin/java" @jvm.options)
    elif [ "$variant" = newer ]; then
        jvm=("$newer/bin/java" @jvm.options)
        case $round in
            warm-up) ;;
            train) jvm+=(-XX:AOTCacheOutput="$work/delay-bridge.aot") ;;
            *) jvm+=(-XX:AOTCache="$work/delay-bridge.aot") ;;
        esac
    fi
    (cd bridge && exec env "${env[@]}" "${jvm[@]}" -jar "$work/delay-bridge.jar" server config.yml \
        > "$work/$variant-$round.log" 2>&1) &
    bridge_pid=$!
    first=$(first_delivery "$variant" "$round" "$started") || exit 1
    kill -TERM "$bridge_pid" && wait "$bridge_pid" || true
    echo "$first"
}
for variant in java17 newer newer-bare; do
    start "$variant" warm-up > /dev/null
done
# the newer JDK's cache is trained on a start that delivers a record, as the class list of the archive was
start newer train > /dev/null
declare -A times
for round in $(seq "$rounds"); do
    for variant in java17 newer newer-bare; do
        t=$(start "$variant" "$round")
        times[$variant]="${times[$variant]:-} $t"
        echo "round $round, $variant: first delivery $t ms after the start command"
    done
done
for variant in java17 newer newer-bare; do
    echo "$variant: median $(echo "${times[$variant]}" | median) ms of $rounds starts (${times[$variant]# })"
done
for variant in java17 newer newer-bare; do
    echo "$variant: $(cat "$work"/$variant-[0-9]*.log | grep -cE '\b(WARN|ERROR)\b' || true) log lines at WARN or ERROR"
done
[ -s "$work/delay-bridge.aot" ] && echo "AOT cache: $(du -m "$work/delay-bridge.aot" | cut -f1) MB" \
    || echo "AOT cache: not written (the newer starts ran without one)"
