#!/usr/bin/env bash
# Deliberately rewrites perf/baseline.json (the CI perf gate's baseline) from one run of the gate
# on this machine: every figure's value is replaced, kinds and tolerances are kept. Review the diff
# and commit it with the change that moved the figures.
#
# A figure marked "update": "keepHighest" in the file keeps the higher of its committed value and
# this run's (the ratios to the reference loop, which fall as the machine gets busier).
#
#   perf/update-baseline.sh            # MVN_OFFLINE=1 to build offline; more Maven options after it
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B ${MVN_OFFLINE:+-o} -pl perf -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=PerfGateIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dperf.gate.update=true "$@"
git --no-pager diff --stat -- perf/baseline.json || true
