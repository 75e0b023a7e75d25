#!/usr/bin/env bash
# Builds the inference-cache image as an OCI archive (control-plane/launcher/target/inference-cache-image.tar) on
# the base from build-base.sh, so that it builds with no registry and no Docker daemon. For a release on the
# default JRE base from a registry: ./mvnw -B -ntp -Pimage -pl control-plane/launcher -am package -DskipTests
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
base=$("$root/ops/images/build-base.sh")
cd "$root"
./mvnw -B -ntp -q -Pimage -pl control-plane/launcher -am package -DskipTests \
  "-Dimage.base=tar://$base"
echo "$root/control-plane/launcher/target/inference-cache-image.tar"
