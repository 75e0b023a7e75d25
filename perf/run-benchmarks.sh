#!/usr/bin/env bash
# Builds perf/target/benchmarks.jar and runs the whole suite: the JMH lookup, LFU-credit and ingest
# benchmarks (the engine and the on-heap reference in the same run, -prof gc for
# allocation), MemoryFootprint (the same three) and AllocationProbe (exact bytes per lookup).
# Writes JSON/text into perf/results/ and prints the comparison table.
#
#   perf/run-benchmarks.sh                 # CI-sized profile (~6 min on 2 cores)
#   PROFILE=full perf/run-benchmarks.sh    # target shapes: pinned 12.8M holder-blocks everywhere
#
# Environment: PROFILE=ci|full, MVN_OFFLINE=1 (build with -o), SKIP_BUILD=1, JMH_EXTRA="..." (more
# JMH options, e.g. "-prof stack"), BENCH=regex (default: every benchmark), SKIP_MEMORY=1,
# MEMORY_XMX (heap of the MemoryFootprint JVM, default 8g), SKIP_ALLOCATION=1 (no AllocationProbe).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/perf/results"
JAR="$ROOT/perf/target/benchmarks.jar"
PROFILE=${PROFILE:-ci}
BENCH=${BENCH:-}
STAMP=${STAMP:-$(date -u +%Y%m%dT%H%M%SZ)}  # perf/publish.sh passes its own

case "$PROFILE" in
  ci)
    # Pinned lookups at 1/16 of the target (800k holder-blocks; same 64-block/16-holder chains),
    # memory at full size, short iterations.
    PINNED_CHAINS=781
    REFRESH_CHAINS=781
    FOOTPRINT_PINNED_CHAINS=12500
    ITER=(-wi 3 -w 2s -i 3 -r 3s)
    ;;
  full)
    PINNED_CHAINS=12500
    REFRESH_CHAINS=12500
    FOOTPRINT_PINNED_CHAINS=12500
    ITER=(-wi 5 -w 3s -i 5 -r 5s)
    ;;
  *)
    echo "PROFILE must be ci or full, not '$PROFILE'" >&2
    exit 2
    ;;
esac

if [[ -z "${SKIP_BUILD:-}" ]]; then
  ./mvnw -B -q ${MVN_OFFLINE:+-o} -pl perf -am package -DskipTests
fi
mkdir -p "$OUT"

MACHINE="$OUT/machine-$STAMP.txt"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "profile: $PROFILE"
  echo "nproc: $(nproc)"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total"}')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -version 2>&1 | sed 's/^/java: /'
} > "$MACHINE"
cat "$MACHINE"

JMH_JSON="$OUT/jmh-$STAMP.json"
# The service benchmarks (io.inferencecache.perf.service) have their own script,
# run-service-benchmarks.sh; "every benchmark" here means the engine suite.
EXCLUDE=()
if [[ -z "$BENCH" ]]; then
  EXCLUDE=(-e 'io\.inferencecache\.perf\.service\.')
fi
# shellcheck disable=SC2086
java -jar "$JAR" ${BENCH:+"$BENCH"} ${EXCLUDE[@]+"${EXCLUDE[@]}"} \
  "${ITER[@]}" -f 1 \
  -p pinnedChains="$PINNED_CHAINS" -p refreshChains="$REFRESH_CHAINS" \
  -prof gc ${JMH_EXTRA:-} \
  -rf json -rff "$JMH_JSON"

FILES=("$JMH_JSON")
if [[ -z "${SKIP_MEMORY:-}" ]]; then
  MEM_JSON="$OUT/memory-$STAMP.json"
  # shellcheck disable=SC2046
  java $(java -cp "$JAR" io.inferencecache.perf.JvmFlags) -Xmx"${MEMORY_XMX:-8g}" \
    -cp "$JAR" io.inferencecache.perf.MemoryFootprint \
    --impls offheap,onheap \
    --pinned-chains "$FOOTPRINT_PINNED_CHAINS" --offheap-hint 1 --out "$MEM_JSON"
  FILES+=("$MEM_JSON")
fi
if [[ -z "${SKIP_ALLOCATION:-}" ]]; then
  ALLOC_TXT="$OUT/allocation-$STAMP.txt"
  # shellcheck disable=SC2046
  java $(java -cp "$JAR" io.inferencecache.perf.JvmFlags) -Xmx4g \
    -cp "$JAR" io.inferencecache.perf.AllocationProbe | tee "$ALLOC_TXT"
  FILES+=("$ALLOC_TXT")
fi

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$MACHINE"
TABLE="$OUT/table-$STAMP.md"
java -cp "$JAR" io.inferencecache.perf.ResultsTable "${FILES[@]}" | tee "$TABLE"
echo
echo "results: ${FILES[*]} $TABLE $MACHINE"
