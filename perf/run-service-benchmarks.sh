#!/usr/bin/env bash
# Service level: (1) the LookupRoute paths in process — zero-copy vs default protobuf,
# latency and gc.alloc.rate.norm in one JMH run, plus the exact per-call allocation probe; (2) the
# grpc-netty server stack over loopback — LookupRoute beside Health/Check (the empty unary RPC) on
# the same server, closed loop at 1/16/64 then open loop at half the best LookupRoute throughput.
# Writes perf/results/service-*-STAMP.{json,txt}. About 5 min on 2 cores.
#
# Environment: MVN_OFFLINE=1 (build with -o), SKIP_BUILD=1, SKIP_JMH=1, SKIP_LOOPBACK=1,
# JMH_EXTRA="..." (more JMH options), LOOPBACK_ARGS="..." (LoopbackLoad options, see --help).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/perf/results"
JAR="$ROOT/perf/target/benchmarks.jar"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)

if [[ -z "${SKIP_BUILD:-}" ]]; then
  ./mvnw -B -q ${MVN_OFFLINE:+-o} -pl perf -am package -DskipTests
fi
mkdir -p "$OUT"
# shellcheck disable=SC2207
FLAGS=($(java -cp "$JAR" io.inferencecache.perf.JvmFlags))

MACHINE="$OUT/service-machine-$STAMP.txt"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc: $(nproc)"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total"}')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  java -version 2>&1 | sed 's/^/java: /'
} > "$MACHINE"
load() { echo "$1: $(uptime | sed 's/^ *//')" | tee -a "$MACHINE"; }
cat "$MACHINE"

if [[ -z "${SKIP_JMH:-}" ]]; then
  load "load before JMH"
  # shellcheck disable=SC2086
  java -jar "$JAR" 'io\.inferencecache\.perf\.service\.LookupRoutePathBenchmark' \
    -prof gc ${JMH_EXTRA:-} -rf json -rff "$OUT/service-jmh-$STAMP.json"
  load "load before allocation probe"
  java "${FLAGS[@]}" -cp "$JAR" io.inferencecache.perf.service.LookupPathAllocation \
    | tee "$OUT/service-allocation-$STAMP.txt"
fi

if [[ -z "${SKIP_LOOPBACK:-}" ]]; then
  load "load before loopback"
  # shellcheck disable=SC2086
  java "${FLAGS[@]}" -Xms1g -Xmx4g -cp "$JAR" io.inferencecache.perf.service.LoopbackLoad \
    --out "$OUT/service-loopback-$STAMP.json" ${LOOPBACK_ARGS:-} \
    | tee "$OUT/service-loopback-$STAMP.txt"
fi
load "load after"
echo "results: $OUT/service-*-$STAMP.*"
