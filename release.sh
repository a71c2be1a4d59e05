#!/usr/bin/env bash
# Cuts a release of delay-bridge (README, "Releases"):
#
#   ./release.sh 0.1.0              # in this checkout: sets the version, commits, builds, tags v0.1.0
#   ./release.sh --dry-run 0.1.0    # the same in a throw-away worktree of HEAD: no commit or tag here
#
# Steps: the version set in every pom (versions-maven-plugin) and as the image's DELAY_VERSION default; CHANGELOG.md's
# Unreleased section becomes the release's entry; a release commit; from it the fat jar, the connectors jar with its
# sources and Javadoc jars, the image (when a Docker engine answers), SHA-256 checksums; then the tag. The artifacts
# land in target/release/<version>/ of this checkout. Tests are not run here: release a commit whose CI passed.
# Needs Maven Central (the plugins' first use downloads them) and, for the image, Docker with BuildKit.
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD

dry_run=false
if [ "${1:-}" = "--dry-run" ]; then
    dry_run=true
    shift
fi
version=${1:-}
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
    echo "usage: ./release.sh [--dry-run] <version>   (semantic version, e.g. 0.1.0 or 1.2.0-rc.1)" >&2
    exit 2
fi
step() { printf '\n== %s\n' "$*"; }
out=$root/target/release/$version$($dry_run && echo "-dry-run" || true)

if $dry_run; then
    work=$(mktemp -d /tmp/delay-bridge-release.XXXXXX)
    trap 'git -C "$root" worktree remove --force "$work" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
    git worktree add --detach "$work" HEAD > /dev/null
    step "dry run of $version in a worktree of HEAD ($(git rev-parse --short=12 HEAD)): $work"
else
    work=$root
    [ -z "$(git status --porcelain)" ] || { echo "the checkout has uncommitted changes: commit or stash them" >&2; exit 1; }
    ! git rev-parse -q --verify "refs/tags/v$version" > /dev/null || { echo "tag v$version exists" >&2; exit 1; }
fi
cd "$work"
grep -q '^## \[Unreleased\]' CHANGELOG.md || { echo "CHANGELOG.md has no '## [Unreleased]' section" >&2; exit 1; }

step "version $version in every pom and docker/Dockerfile"
./mvnw -B -ntp -q org.codehaus.mojo:versions-maven-plugin:2.18.0:set -DnewVersion="$version" \
    -DgenerateBackupPoms=false -DprocessAllModules=true
sed -i "s/^ARG DELAY_VERSION=.*/ARG DELAY_VERSION=$version/" docker/Dockerfile
grep -q "^ARG DELAY_VERSION=$version\$" docker/Dockerfile

step "CHANGELOG.md: Unreleased becomes [$version] - $(date -u +%F)"
sed -i "s/^## \[Unreleased\]\$/## [Unreleased]\n\n## [$version] - $(date -u +%F)/" CHANGELOG.md
sed -i "s|^\[Unreleased\]: .*|[Unreleased]: https://github.com/delaybridge/delay-bridge/compare/v$version...main\n[$version]: https://github.com/delaybridge/delay-bridge/releases/tag/v$version|" CHANGELOG.md

step "release commit"
git add -A
git -c user.name="${GIT_AUTHOR_NAME:-delay-bridge release}" -c user.email="${GIT_AUTHOR_EMAIL:-release@localhost}" \
    commit -q -m "release: $version"
commit=$(git rev-parse --short=12 HEAD)
echo "commit $commit"

step "fat jar, connectors jar with sources and Javadoc"
# DELAY_COMMIT: the commit the jar names (--version, /healthcheck), the release commit
DELAY_COMMIT=$commit ./mvnw -B -ntp -q -DskipTests -Dcds.skip=true -pl bridge,connectors -am package \
    org.apache.maven.plugins:maven-source-plugin:3.3.1:jar-no-fork \
    org.apache.maven.plugins:maven-javadoc-plugin:3.11.2:jar -Ddoclint=all,-missing
rm -rf "$out" && mkdir -p "$out"
cp bridge/target/delay-bridge.jar "$out/delay-bridge-$version.jar"
for kind in "" -sources -javadoc; do
    cp "connectors/target/delay-bridge-connectors-$version$kind.jar" "$out/"
done
java -jar "$out/delay-bridge-$version.jar" --version | tee "$out/VERSION"
grep -qx "$version (commit $commit)" "$out/VERSION"

step "image delay-bridge:$version"
if docker info > /dev/null 2>&1; then
    # BuildKit: a client without the buildx plugin cannot use it; Debian's 20.10 client has it built in
    build_cli=docker
    if ! docker buildx version > /dev/null 2>&1 && [ -x /usr/bin/docker ]; then build_cli=/usr/bin/docker; fi
    DOCKER_BUILDKIT=1 $build_cli build -q -f docker/Dockerfile --build-arg DELAY_COMMIT="$commit" \
        --build-arg DELAY_VERSION="$version" -t "delay-bridge:$version" . > "$out/IMAGE"
    docker image inspect "delay-bridge:$version" -f '{{json .Config.Labels}}' | tee -a "$out/IMAGE"
else
    echo "no Docker engine answers (docker info): the image is not built; build it where one runs with" | tee "$out/IMAGE"
    echo "  docker build -f docker/Dockerfile --build-arg DELAY_COMMIT=$commit -t delay-bridge:$version ." \
        | tee -a "$out/IMAGE"
fi

step "SHA-256 checksums"
(cd "$out" && sha256sum ./*.jar | sed 's|\./||' > SHA256SUMS && cat SHA256SUMS)

if $dry_run; then
    step "dry run done: artifacts in $out; nothing committed or tagged in $root"
else
    git tag -a "v$version" -m "delay-bridge $version"
    step "released $version: tag v$version on $commit, artifacts in $out"
    echo "next: push the commit and the tag; publish $out; set the next version, e.g."
    echo "  ./mvnw versions:set -DnewVersion=<next>-SNAPSHOT -DgenerateBackupPoms=false -DprocessAllModules=true"
    echo "  sed -i 's/^ARG DELAY_VERSION=.*/ARG DELAY_VERSION=<next>-SNAPSHOT/' docker/Dockerfile"
fi
