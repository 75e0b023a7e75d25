#!/usr/bin/env bash
# Starts the server jar on loopback (kernel-picked ports, in-memory index, auth off) and runs one
# reliability load tool against it, then stops the server (docs/reliability.md).
#
#   perf/run-reliability.sh lookups        # LookupRoute open-loop at 1×, 2×, 10× the measured max
#   perf/run-reliability.sh ingest-flood   # ingest flood while lookups continue
#   perf/run-reliability.sh abuse          # idle connections, slowloris, ping flood, oversized input
#
# Needs the jars: ./mvnw -B -o -pl control-plane/launcher,perf -am package -DskipTests
# Env: SECONDS_PER_PHASE (10), SERVER_XMX (512m), EXTRA ("--flag value ..." passed to the tool),
#      SERVER_CPUS / CLIENT_CPUS (taskset CPU lists, e.g. 0 and 1: server and load client on
#      separate cores, so the client cannot steal the server's CPU; unset = no pinning),
#      SERVER_CPU_QUOTA (cores, e.g. 0.08: once the server is ready it is put in a cgroup-v1 CPU quota,
#      so that one client core can offer it 10× its maximum; needs root and /sys/fs/cgroup/cpu),
#      SERVER_WARMUP (seconds, default 0: before the quota is applied, drive the lookups tool at full
#      CPU for about this long per phase so the server's JIT is warm; without it a starved server
#      compiles its hot path during the run and its capacity climbs as the phases go).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JAR=${JAR:-$ROOT/control-plane/launcher/target/inference-cache.jar}
PERF_JAR=${PERF_JAR:-$ROOT/perf/target/benchmarks.jar}
JAVA=${JAVA:-java}
TOOL=${1:?usage: perf/run-reliability.sh lookups|ingest-flood|abuse}
PHASE_S=${SECONDS_PER_PHASE:-10}
EXTRA=${EXTRA:-}
SERVER_PIN=() CLIENT_PIN=()
[[ -n ${SERVER_CPUS:-} ]] && SERVER_PIN=(taskset -c "$SERVER_CPUS")
[[ -n ${CLIENT_CPUS:-} ]] && CLIENT_PIN=(taskset -c "$CLIENT_CPUS")
for f in "$JAR" "$PERF_JAR"; do
  [[ -f $f ]] || { echo "missing $f: ./mvnw -B -o -pl control-plane/launcher,perf -am package -DskipTests" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reliability.XXXXXX")
SERVER_PID=""
CGROUP=""
cleanup() {
  [[ -n $SERVER_PID ]] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [[ -n $CGROUP ]] && rmdir "$CGROUP" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cat >"$WORK/config.yml" <<EOF
index:
  maxEntries: 4000000
EOF
"${SERVER_PIN[@]}" "$JAVA" -Xmx"${SERVER_XMX:-512m}" -jar "$JAR" serve --config "$WORK/config.yml" --insecure-disable-auth \
  --grpc-bind-address=127.0.0.1:0 --http-bind-address=127.0.0.1:0 --snapshot-bind-address=127.0.0.1:0 \
  --log-format=text >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
deadline=$(( $(date +%s) + 180 ))
GRPC="" HTTP="" SNAP=""
until [[ -n $HTTP ]] && curl -sf -m 2 "http://$HTTP/readyz" >/dev/null 2>&1; do
  (( $(date +%s) < deadline )) && kill -0 "$SERVER_PID" || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.2
  GRPC=$(grep -o 'event=grpc_serving [^ ]* port=[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*port=/127.0.0.1:/') || true
  HTTP=$(grep -o 'inferencecache-public=127\.0\.0\.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*=//') || true
  SNAP=$(grep -o 'inferencecache-snapshot=127\.0\.0\.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*=//') || true
  [[ -n $GRPC && -n $SNAP ]] || HTTP=""
done
if [[ ${SERVER_WARMUP:-0} != 0 ]]; then
  echo "warming the server up (${SERVER_WARMUP}s per phase, full CPU, results discarded)"
  "${CLIENT_PIN[@]}" "$JAVA" -cp "$PERF_JAR" io.inferencecache.perf.reliability.Overload lookups \
    --grpc "$GRPC" --http "$HTTP" --seconds "$SERVER_WARMUP" >/dev/null 2>&1 || true
fi
if [[ -n ${SERVER_CPU_QUOTA:-} ]]; then
  CGROUP=/sys/fs/cgroup/cpu/inferencecache-reliability-$$
  mkdir "$CGROUP" || { echo "SERVER_CPU_QUOTA needs a writable /sys/fs/cgroup/cpu (cgroup v1, root)" >&2; exit 2; }
  # 50 ms periods: throttling stalls stay short, and the quota stays above the kernel's 1 ms minimum.
  echo 50000 >"$CGROUP/cpu.cfs_period_us"
  quota_us=$(awk -v q="$SERVER_CPU_QUOTA" 'BEGIN { printf "%d", q * 50000 }')
  echo "$quota_us" >"$CGROUP/cpu.cfs_quota_us"
  echo "$SERVER_PID" >"$CGROUP/cgroup.procs"
fi
echo "server ready: grpc=$GRPC http=$HTTP snapshot=$SNAP (cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg), server cpus: ${SERVER_CPUS:-any}, client cpus: ${CLIENT_CPUS:-any}, server cpu quota: ${SERVER_CPU_QUOTA:-none}, warm-up: ${SERVER_WARMUP:-0}s)"
# shellcheck disable=SC2086
case "$TOOL" in
  lookups) "${CLIENT_PIN[@]}" "$JAVA" -cp "$PERF_JAR" io.inferencecache.perf.reliability.Overload lookups \
             --grpc "$GRPC" --http "$HTTP" --seconds "$PHASE_S" $EXTRA ;;
  ingest-flood) "${CLIENT_PIN[@]}" "$JAVA" -cp "$PERF_JAR" io.inferencecache.perf.reliability.Overload ingest-flood \
             --grpc "$GRPC" --http "$HTTP" --snapshot "$SNAP" --seconds "$PHASE_S" $EXTRA ;;
  abuse) "${CLIENT_PIN[@]}" "$JAVA" -cp "$PERF_JAR" io.inferencecache.perf.reliability.ConnectionAbuse \
             --grpc "$GRPC" --http "$HTTP" --snapshot "$SNAP" --seconds "$PHASE_S" $EXTRA ;;
  *) echo "unknown tool $TOOL" >&2; exit 2 ;;
esac
