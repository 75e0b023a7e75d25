#!/usr/bin/env bash
# CPU profile of JMH benchmarks with async-profiler (Java and native frames, no safepoint bias):
# writes per benchmark the measured method's top frames into perf/results/profile-<stamp>-<name>.txt
# (with JMH's scores), and async-profiler's own summary, the collapsed stacks and flame graphs under
# perf/target/profiles/<stamp>-<name>/. The profiler's library comes from the build's
# local repository (tools.profiler:async-profiler, pinned in the parent POM; a build of the perf module
# resolves it) and is unpacked under perf/target/async-profiler.
#
#   perf/profile.sh NAME 'IngestBenchmark' -p impl=offheap -p mode=newKeys
#   perf/profile.sh single 'SingleHolderLookupBenchmark' -p impl=offheap
#
# Everything after NAME is passed to JMH, after JMH_DEFAULTS (default "-f 1 -wi 3 -w 2s -i 3 -r 3s";
# JMH refuses an option given twice, so to choose iterations or forks set JMH_DEFAULTS="" and pass them
# all). Environment: SKIP_BUILD=1 (use the existing benchmarks.jar), JAR=path (profile another build's
# benchmarks jar, e.g. an older commit's, with SKIP_BUILD=1), MVN_OFFLINE=1, MAVEN_REPO (the local
# repository, default ~/.m2/repository), INTERVAL_NS (sampling interval, default 200000), EVENT (cpu, or
# itimer where perf events are closed).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
NAME=${1:?usage: perf/profile.sh NAME BENCHMARK_REGEX [JMH options]}
: "${2:?usage: perf/profile.sh NAME BENCHMARK_REGEX [JMH options]}"
shift
JAR=${JAR:-$ROOT/perf/target/benchmarks.jar}
if [[ -z "${SKIP_BUILD:-}" ]]; then
  ./mvnw -B -q ${MVN_OFFLINE:+-o} -pl perf -am package -DskipTests -Djazzer.instrument=none
fi
VERSION=$(sed -n 's:.*<async-profiler.version>\(.*\)</async-profiler.version>.*:\1:p' pom.xml)
AP_JAR="${MAVEN_REPO:-$HOME/.m2/repository}/tools/profiler/async-profiler/$VERSION/async-profiler-$VERSION.jar"
if [[ ! -f "$AP_JAR" ]]; then
  echo "async-profiler $VERSION not in the local repository ($AP_JAR): build the perf module first" >&2
  exit 2
fi
LIB_DIR="$ROOT/perf/target/async-profiler"
mkdir -p "$LIB_DIR"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64 ;;
  Linux-aarch64) PLATFORM=linux-arm64 ;;
  Darwin-*) PLATFORM=macos ;;
  *) echo "async-profiler $VERSION has no library for $(uname -sm)" >&2; exit 2 ;;
esac
(cd "$LIB_DIR" && jar xf "$AP_JAR" "$PLATFORM/libasyncProfiler.so")
LIB="$LIB_DIR/$PLATFORM/libasyncProfiler.so"

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT="$ROOT/perf/target/profiles/$STAMP-$NAME"
REPORT="$ROOT/perf/results/profile-$STAMP-$NAME.txt"
mkdir -p "$OUT"
PROF="async:libPath=$LIB;event=${EVENT:-cpu};interval=${INTERVAL_NS:-200000};output=text,collapsed,flamegraph;dir=$OUT"
# shellcheck disable=SC2086 # JMH_DEFAULTS is a list of options
java -jar "$JAR" ${JMH_DEFAULTS--f 1 -wi 3 -w 2s -i 3 -r 3s} "$@" -prof "$PROF" | tee "$OUT/jmh.txt"
{
  echo "# perf/profile.sh $NAME $*  ($(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
  grep -E '^(Benchmark|[A-Za-z]+Benchmark\.)' "$OUT/jmh.txt" || true
} > "$REPORT"
# Per benchmark: the samples inside the measured method only (JMH's *_jmhStub frame; setup and
# teardown excluded), by self frame and by inclusive engine / Chronicle frame, in top.txt.
find "$OUT" -name 'collapsed-*.csv' -print0 | sort -z | while IFS= read -r -d '' csv; do
  awk '
    index($0, "_jmhStub") {
      n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
      total += n; k = split(line, f, ";"); self[f[k]] += n
      delete seen
      for (i = 1; i <= k; i++) {
        if (!(f[i] in seen) && f[i] ~ /inferencecache|openhft/) { seen[f[i]] = 1; incl[f[i]] += n }
      }
    }
    END {
      printf "samples in the measured method: %d\n## self\n", total
      for (m in self) printf "%6.1f%%  %s\n", 100 * self[m] / total, m | "sort -rn | head -40"
      close("sort -rn | head -40")
      printf "## inclusive (engine and Chronicle frames)\n"
      for (m in incl) printf "%6.1f%%  %s\n", 100 * incl[m] / total, m | "sort -rn | head -60"
      close("sort -rn | head -60")
    }' "$csv" > "$(dirname "$csv")/top.txt"
  { echo; echo "# $(basename "$(dirname "$csv")")"; cat "$(dirname "$csv")/top.txt"; } >> "$REPORT"
done
echo "raw profiles in $OUT; summary in $REPORT"
