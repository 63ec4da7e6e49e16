#!/usr/bin/env bash
# Rehearses a release without publishing anything: a clean clone of HEAD set to a release version,
# built with the release profile (tests skipped: CI ran them), signed with a throwaway GPG key made
# for the run, bundled by central-publishing-maven-plugin with the upload off (its default here).
# Then checks the bundle as Maven Central would: every module the BOM lists, the parent and the BOM
# are in it; each jar comes with its sources and javadoc jars; every file is signed (a signature is
# verified) and has its checksums; nothing that is not published (benchmarks, examples) is there.
#
#   scripts/release-rehearsal.sh [version]     # default: the POM's version without -SNAPSHOT
#
# Needs git, gpg and network access to Maven Central (plugins). Exit code 0 when the bundle is
# complete; the bundle is copied to target/central-bundle-<version>.zip.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
snapshot="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$root/pom.xml" | head -1)"
version="${1:-${snapshot%-SNAPSHOT}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

git clone -q "$root" "$work/inbox"
cd "$work/inbox"
git ls-files '*pom.xml' | xargs sed -i "s/${snapshot//./\\.}/${version}/g"

export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'inbox release rehearsal <rehearsal@inbox.invalid>' \
  default default never 2>/dev/null

./mvnw -B -q -Prelease -DskipTests -Dmaven.repo.local="$work/repo" deploy > "$work/build.log" 2>&1 || {
  tail -50 "$work/build.log"
  echo "release build failed" >&2
  exit 1
}
bundle="inbox-bom/target/central-publishing/central-bundle.zip"
[ -f "$bundle" ] || { echo "no bundle at $bundle" >&2; exit 1; }
unzip -q "$bundle" -d "$work/bundle"

missing=0
check() { [ -f "$work/bundle/$1" ] || { echo "missing: $1"; missing=$((missing + 1)); }; }
published="$(printf '%s\n' inbox-parent inbox-bom $(sed -n 's:.*<artifactId>\(inbox-[a-z-]*\)</artifactId>.*:\1:p' inbox-bom/pom.xml) | sort -u)"
for artifact in $published; do
  base="dev/inbox/$artifact/$version/$artifact-$version"
  files="$base.pom"
  if [ "$artifact" != inbox-parent ] && [ "$artifact" != inbox-bom ]; then
    files="$files $base.jar $base-sources.jar $base-javadoc.jar"
  fi
  for file in $files; do
    for suffix in "" .asc .md5 .sha1; do
      check "$file$suffix"
    done
  done
done
for unpublished in benchmarks inbox-example-rabbitmq-postgres inbox-example-boot-parent; do
  if [ -d "$work/bundle/dev/inbox/$unpublished" ]; then
    echo "published by mistake: $unpublished"
    missing=$((missing + 1))
  fi
done
gpg --quiet --verify "$work/bundle/dev/inbox/inbox-api/$version/inbox-api-$version.jar.asc" \
  "$work/bundle/dev/inbox/inbox-api/$version/inbox-api-$version.jar" 2>/dev/null \
  || { echo "the signature of inbox-api does not verify"; missing=$((missing + 1)); }

mkdir -p "$root/target"
cp "$bundle" "$root/target/central-bundle-$version.zip"
count="$(find "$work/bundle" -type f | wc -l)"
echo "bundle: $(echo $published | wc -w) artifacts, $count files -> target/central-bundle-$version.zip"
if [ "$missing" -gt 0 ]; then
  echo "NOT READY: $missing problems" >&2
  exit 1
fi
echo "READY: what Maven Central requires is in the bundle (nothing was uploaded)"
