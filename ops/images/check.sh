#!/usr/bin/env bash
# Checks an image archive the way a cluster would use it, without a container runtime:
#  1. skopeo reads its config: entrypoint `java -jar /app/inference-cache.jar`, default command `serve`,
#     a non-root user, the four ports;
#  2. umoci unpacks its root filesystem, and the entrypoint, run under chroot as the image's user with the
#     image's environment, serves /readyz on a loopback port.
# Needs root (chroot, mounting /proc), skopeo, umoci, jq and curl.
#   ops/images/check.sh [control-plane/launcher/target/inference-cache-image.tar]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
archive=$(realpath "${1:-$root/control-plane/launcher/target/inference-cache-image.tar}")
fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "chroot needs root"

config=$(skopeo inspect --config "oci-archive:$archive")
jq -e '.config.Entrypoint == ["java","-jar","/app/inference-cache.jar"]' <<<"$config" >/dev/null ||
  fail "entrypoint is $(jq -c .config.Entrypoint <<<"$config")"
jq -e '.config.Cmd == ["serve"]' <<<"$config" >/dev/null || fail "command is $(jq -c .config.Cmd <<<"$config")"
user=$(jq -r '.config.User' <<<"$config")
[[ $user =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] || fail "user is '$user', want a non-root uid:gid"
ports=$(jq -r '.config.ExposedPorts | keys | sort | join(" ")' <<<"$config")
[[ $ports == "8080/tcp 8081/tcp 9090/tcp 9443/tcp" ]] || fail "ports are $ports"
echo "check.sh: config OK (user $user, ports $ports)"

work=$(mktemp -d)
rootfs=$work/bundle/rootfs
pid=
cleanup() {
  local status=$?
  set +e
  if [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  mountpoint -q "$rootfs/proc" && umount "$rootfs/proc"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
skopeo copy -q "oci-archive:$archive" "oci:$work/oci:check"
umoci unpack --image "$work/oci:check" "$work/bundle" >/dev/null
mount -t proc proc "$rootfs/proc" # the JVM's launcher finds libjli through /proc/self/exe

mapfile -t env < <(jq -r '.config.Env[]' <<<"$config")
mapfile -t entry < <(jq -r '.config.Entrypoint[]' <<<"$config")
workdir=$(jq -r '.config.WorkingDir // "/"' <<<"$config")
chroot --userspec="$user" "$rootfs" /usr/bin/env -i "${env[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$workdir" \
  "${entry[@]}" serve --insecure-disable-auth --grpc-bind-address=127.0.0.1:0 \
  --http-bind-address=127.0.0.1:0 --snapshot-bind-address=127.0.0.1:0 >"$work/serve.log" 2>&1 &
pid=$!
http=
for _ in $(seq 1 120); do
  # the startup line names the ports the listeners were given: inferencecache-public=127.0.0.1:<port>
  [[ -n $http ]] || http=$(grep -o 'inferencecache-public=127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -1 | cut -d: -f2 || true)
  if [[ -n $http && $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http/readyz" || true) == 200 ]]; then
    echo "check.sh: OK: the unpacked image's entrypoint serves /readyz (uid ${user%%:*}, 127.0.0.1:$http)"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { tail -20 "$work/serve.log" >&2; fail "the server exited"; }
  sleep 1
done
tail -20 "$work/serve.log" >&2
fail "no 200 from /readyz within 120 s"
