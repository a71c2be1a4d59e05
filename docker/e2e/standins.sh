#!/usr/bin/env bash
# Builds images that stand in for the public ones docker/Dockerfile and docker/docker-compose.yml name, for a machine
# that cannot pull them: a Debian bookworm base made by debootstrap, then Debian packages and Maven Central jars on it.
# A public name is tagged only where no image of that name is present, so real images, when there, are used instead.
#
#   docker/e2e/standins.sh            # from the repository root; needs root, docker, debootstrap, and ./mvnw online
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${E2E_WORK:-$root/target/docker-e2e}
mkdir -p "$work"

have() { docker image inspect "$1" > /dev/null 2>&1; }

if ! have delay-bridge-e2e/debian:bookworm; then
    if [ ! -x "$work/rootfs/bin/sh" ]; then
        echo "debootstrap: a minimal Debian bookworm root in $work/rootfs (about a minute)"
        rm -rf "$work/rootfs"
        debootstrap --variant=minbase bookworm "$work/rootfs" > "$work/debootstrap.log"
    fi
    tar -C "$work/rootfs" -c . | docker import - delay-bridge-e2e/debian:bookworm
fi

# The broker's and the tools' jars, of the compose file's Kafka version.
if [ ! -f "$work/kafka-libs/kafka-tools-4.3.1.jar" ]; then
    "$root/mvnw" -B -ntp -q -f "$here/standins/kafka/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$work/kafka-libs"
fi
rm -rf "$here/standins/kafka/libs" && cp -r "$work/kafka-libs" "$here/standins/kafka/libs"
# The build image trusts what the host trusts beyond Debian's list (see standins/maven/Dockerfile).
rm -rf "$here/standins/maven/host-ca" && mkdir "$here/standins/maven/host-ca"
cp /usr/local/share/ca-certificates/*.crt "$here/standins/maven/host-ca/" 2> /dev/null || true
trap 'rm -rf "$here/standins/kafka/libs" "$here/standins/maven/host-ca"' EXIT

# standin <directory> <public name>...: builds the directory's image once and gives it each public name not present.
standin() {
    local dir=$1; shift
    local own=delay-bridge-e2e/$dir:standin
    have "$own" || DOCKER_BUILDKIT=0 docker build -q -t "$own" "$here/standins/$dir"
    for name in "$@"; do
        if have "$name" && [ "$(docker image inspect -f '{{.Id}}' "$name")" != "$(docker image inspect -f '{{.Id}}' "$own")" ]; then
            echo "$name: a real image is present, used as it is"
        else
            docker tag "$own" "$name"
            echo "$name: stand-in $own"
        fi
    done
}
standin maven maven:3.9-eclipse-temurin-17
standin jre eclipse-temurin:17-jre
standin kafka apache/kafka:4.3.1
standin redis redis:7.2 redis:7
# the profile "monitoring": Prometheus and redis_exporter from Debian's packages; Grafana, which Debian does not
# package, by a stand-in that checks the provisioning files and serves /api/health (standins/grafana/Dockerfile)
standin prometheus prom/prometheus:v2.53.0
standin redis-exporter oliver006/redis_exporter:v1.62.0
standin grafana grafana/grafana:11.1.0
