#!/usr/bin/env bash
# Builds the image's base from Debian packages only (debootstrap: minbase + openjdk-17-jre-headless +
# ca-certificates), for machines that reach Debian's archive but no container registry. Writes a
# docker-archive tarball (the form Jib's tar:// base accepts) and prints its path. Cached: a second run only
# prints the path. Needs root (debootstrap, chroot), debootstrap, umoci and skopeo.
#   ops/images/build-base.sh [--force]
set -euo pipefail

suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/inference-cache/images
out=$cache/debian-$suite-jre17.tar
tag=inference-cache/debian-jre:17

if [[ -f $out && ${1:-} != --force ]]; then
  echo "$out"
  exit 0
fi
[[ $(id -u) -eq 0 ]] || { echo "build-base.sh: debootstrap needs root" >&2; exit 1; }
for tool in debootstrap umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "build-base.sh: $tool is missing (apt-get install $tool)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "build-base.sh: debootstrap $suite into $work/root (a few minutes)" >&2
debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates \
  "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# What a runtime image does not need: downloaded packages, package lists, documentation.
rm -rf "$work/root"/var/cache/apt/archives/*.deb "$work/root"/var/lib/apt/lists/* \
  "$work/root"/usr/share/doc "$work/root"/usr/share/man "$work/root"/usr/share/info

umoci init --layout "$work/oci"
umoci new --image "$work/oci:base"
umoci unpack --image "$work/oci:base" "$work/bundle" >/dev/null
cp -a "$work/root/." "$work/bundle/rootfs/"
umoci repack --image "$work/oci:base" "$work/bundle"
umoci config --image "$work/oci:base" \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.env JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 \
  --config.label "org.opencontainers.image.description=Debian $suite minbase with openjdk-17-jre-headless"

mkdir -p "$cache"
skopeo copy -q "oci:$work/oci:base" "docker-archive:$out.tmp:$tag"
mv "$out.tmp" "$out"
echo "$out"
