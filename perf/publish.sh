#!/usr/bin/env bash
# Regenerates the benchmark table of perf/README.md (between its BEGIN/END GENERATED TABLE
# markers) from one run of everything, with one stamp:
#   1. perf/run-benchmarks.sh: JMH engine-vs-on-heap suites + MemoryFootprint (+ machine file)
#   2. ReplayRunner over gRPC loopback (the real server in the replay's JVM) at the target:
#      Mooncake conversation trace x7 worker duplication, as fast as possible
#   3. ReplayRunner on the engine alone (no gRPC), same settings
#   4. PublishTable: machine/JDK/date + engine rows + replay rows + the service rows from the
#      newest perf/results/service-*.json (the service benchmarks' JSON) when present
#
#   perf/publish.sh                      # everything (~35 min on 2 cores)
#   SKIP_JMH=1 STAMP=<old stamp> perf/publish.sh   # reuse that run's JMH/memory files, replay again
#
# Environment: everything of run-benchmarks.sh (PROFILE, MVN_OFFLINE, SKIP_BUILD, SKIP_MEMORY, ...),
# REPLAY_DUPLICATION (7), REPLAY_REPLICAS (16 per copy), REPLAY_CAPACITY (8192 blocks),
# REPLAY_DURATION (900 s bound per replay), REPLAY_EXTRA (more ReplayRunner options),
# REPLAY_XMX (4g), SKIP_REPLAY=1, SKIP_JMH=1.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/perf/results"
JAR="$ROOT/perf/target/benchmarks.jar"
export STAMP=${STAMP:-$(date -u +%Y%m%dT%H%M%SZ)}
D=${REPLAY_DUPLICATION:-7}
N=${REPLAY_REPLICAS:-16}
CAP=${REPLAY_CAPACITY:-8192}
DURATION=${REPLAY_DURATION:-900}

if [[ -z "${SKIP_BUILD:-}" ]]; then
  ./mvnw -B -q ${MVN_OFFLINE:+-o} -pl perf -am package -DskipTests
fi
mkdir -p "$OUT"

if [[ -z "${SKIP_JMH:-}" ]]; then
  SKIP_BUILD=1 perf/run-benchmarks.sh
fi
MACHINE="$OUT/machine-$STAMP.txt"
# With SKIP_JMH the stamp's machine file describes the earlier JMH run: its load lines stay, and a
# replay run now adds its own ("replay ..." lines).
REUSED=
if [[ -n "${SKIP_JMH:-}" && -f "$MACHINE" ]]; then
  REUSED=1
fi
if [[ ! -f "$MACHINE" ]]; then
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "profile: replay only"
    echo "nproc: $(nproc)"
    echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total"}')"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    java -version 2>&1 | sed 's/^/java: /'
  } > "$MACHINE"
fi

if [[ -z "${SKIP_REPLAY:-}" ]]; then
  if [[ -n "$REUSED" ]]; then
    sed -i '/^replay /d' "$MACHINE"
    echo "replay date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$MACHINE"
    echo "replay load before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$MACHINE"
  fi
  # shellcheck disable=SC2046
  FLAGS=$(java -cp "$JAR" io.inferencecache.perf.JvmFlags)
  for MODE in grpc engine; do
    echo "== replay: $MODE, conversation x$D, $N replicas/copy, $CAP blocks/replica =="
    # shellcheck disable=SC2086
    java $FLAGS -Xms1g -Xmx"${REPLAY_XMX:-4g}" -cp "$JAR" io.inferencecache.perf.replay.ReplayRunner \
      --mode "$MODE" --duplication "$D" --replicas "$N" --capacity "$CAP" \
      --duration "$DURATION" ${REPLAY_EXTRA:-} --out "$OUT/replay-$MODE-$STAMP.json"
  done
fi

# Keep the committed JMH JSON small: drop the raw samples (the table uses score and percentiles).
if [[ -f "$OUT/jmh-$STAMP.json" ]] && command -v jq > /dev/null; then
  jq 'map(del(.primaryMetric.rawData, .primaryMetric.rawDataHistogram)
      | .secondaryMetrics |= with_entries(.value |= del(.rawData, .rawDataHistogram)))' \
    "$OUT/jmh-$STAMP.json" > "$OUT/jmh-$STAMP.json.tmp" && mv "$OUT/jmh-$STAMP.json.tmp" "$OUT/jmh-$STAMP.json"
fi
if [[ -z "$REUSED" ]]; then
  sed -i '/^load after:/d' "$MACHINE"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$MACHINE"
elif [[ -z "${SKIP_REPLAY:-}" ]]; then
  echo "replay load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$MACHINE"
fi
java -cp "$JAR" io.inferencecache.perf.report.PublishTable --results "$OUT" --stamp "$STAMP" \
  --readme "$ROOT/perf/README.md"
java -cp "$JAR" io.inferencecache.perf.report.PublishTable --results "$OUT" --stamp "$STAMP" \
  > "$OUT/table-$STAMP.md"
echo "table: perf/README.md (and $OUT/table-$STAMP.md)"
