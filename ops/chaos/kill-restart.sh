#!/usr/bin/env bash
# Crash/restart test of the server with a persisted index (docs/reliability.md, row "kill -9 under ingest").
#
#   ops/chaos/kill-restart.sh [ITERATIONS]       # default 100; CI runs 5 (perf KillRestartIT)
#
# Each iteration starts control-plane/launcher/target/inference-cache.jar on loopback (ports picked by the
# kernel, read from the log) with index.persistenceFile set, waits for /readyz (READY_TIMEOUT s),
# checks the index (acknowledged chains are all found, a lookup never names a replica that did not
# report the chain, never-reported chains get no hint, /snapshot totals cover what was acknowledged),
# then drives ReportCacheState ingest (perf IngestLoad) and kills the server with SIGKILL after a
# random delay. Every 10th iteration kills it during start-up/recovery instead. After the loop:
# one more restart and check, then a graceful SIGTERM under ingest + lookups (in-flight lookups
# complete, the index closes cleanly, the reopened index has every acknowledged entry, no recovery).
#
# Needs: java 17+, curl; the jars (./mvnw -B -o -pl control-plane/launcher,perf -am package -DskipTests).
# Env: ITERATIONS, JAR, PERF_JAR, JAVA, READY_TIMEOUT (120), MAX_KILL_DELAY_MS (3000), STARTUP_KILL_EVERY (10),
#      MAX_CHAINS (8000 per iteration), RATE (5000 chains/s), INDEX_MAX_ENTRIES (4000000: no eviction
#      within 100 iterations, so every acknowledged chain must be found), INDEX_TTL (24h: no TTL expiry
#      within a run), BLOCKS (4; a chain of 1-2
#      blocks is answered AFFINITY_HINT, not PREFIX_MATCH), RUN_BOUND_S (3600), SEED, KEEP_WORK (0), WORK_DIR.
# Output: one line per iteration, then a summary block of key=value lines; exit 0 only if nothing
# acknowledged was lost (outside a set-aside), no wrong hint, every restart got ready in bound, and
# the graceful stop was clean.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAR=${JAR:-$ROOT/control-plane/launcher/target/inference-cache.jar}
PERF_JAR=${PERF_JAR:-$ROOT/perf/target/benchmarks.jar}
JAVA=${JAVA:-java}
ITERATIONS=${1:-${ITERATIONS:-100}}
READY_TIMEOUT=${READY_TIMEOUT:-120}
MAX_KILL_DELAY_MS=${MAX_KILL_DELAY_MS:-3000}
MAX_CHAINS=${MAX_CHAINS:-8000}
RATE=${RATE:-5000}
INDEX_MAX_ENTRIES=${INDEX_MAX_ENTRIES:-4000000}
# Longer than any run: with the default 30m TTL, chains acknowledged early in a long run expire
# (and are correctly swept), which the check would count as lost.
INDEX_TTL=${INDEX_TTL:-24h}
BLOCKS=${BLOCKS:-4}
RUN_BOUND_S=${RUN_BOUND_S:-3600}
STARTUP_KILL_EVERY=${STARTUP_KILL_EVERY:-10}
SEED=${SEED:-$$}
KEEP_WORK=${KEEP_WORK:-0}
RANDOM=$SEED

for f in "$JAR" "$PERF_JAR"; do
  [[ -f $f ]] || { echo "missing $f: ./mvnw -B -o -pl control-plane/launcher,perf -am package -DskipTests" >&2; exit 2; }
done
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

WORK=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/kill-restart.XXXXXX")}
mkdir -p "$WORK"
INDEX=$WORK/index.dat
ACKED=$WORK/acked.txt
CONFIG=$WORK/config.yml
cat >"$CONFIG" <<EOF
index:
  maxEntries: $INDEX_MAX_ENTRIES
  persistenceFile: $INDEX
  defaultTtl: $INDEX_TTL
EOF

SERVER_PID=""
LOAD_PID=""
cleanup() {
  [[ -n $LOAD_PID ]] && kill -9 "$LOAD_PID" 2>/dev/null || true
  [[ -n $SERVER_PID ]] && kill -9 "$SERVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  if [[ $KEEP_WORK == 1 ]]; then echo "work dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
RUN_END=$(( $(date +%s) + RUN_BOUND_S ))

client() { "$JAVA" -Xmx256m -cp "$PERF_JAR" io.inferencecache.perf.chaos.IngestLoad "$@"; }

LOG=""
GRPC_PORT=""
HTTP_PORT=""
SNAP_PORT=""
start_server() { # $1 = log file
  LOG=$1
  GRPC_PORT="" HTTP_PORT="" SNAP_PORT=""
  "$JAVA" -Xmx512m -jar "$JAR" serve --config "$CONFIG" --insecure-disable-auth \
    --grpc-bind-address=127.0.0.1:0 --http-bind-address=127.0.0.1:0 \
    --snapshot-bind-address=127.0.0.1:0 --log-format=text >"$LOG" 2>&1 &
  SERVER_PID=$!
}

# Waits for /readyz; sets WAIT_MS (ms from start) and the ports. Returns 1 if not ready in READY_TIMEOUT.
WAIT_MS=""
wait_ready() { # $1 = start ms
  local deadline=$(( $1 + READY_TIMEOUT * 1000 ))
  while (( $(now_ms) < deadline )); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then return 1; fi
    if [[ -z $HTTP_PORT ]]; then
      GRPC_PORT=$(grep -o 'event=grpc_serving [^ ]* port=[0-9]*' "$LOG" | head -1 | sed 's/.*port=//') || true
      HTTP_PORT=$(grep -o 'inferencecache-public=127\.0\.0\.1:[0-9]*' "$LOG" | head -1 | sed 's/.*://') || true
      SNAP_PORT=$(grep -o 'inferencecache-snapshot=127\.0\.0\.1:[0-9]*' "$LOG" | head -1 | sed 's/.*://') || true
      [[ -n $GRPC_PORT && -n $SNAP_PORT ]] || HTTP_PORT=""
    fi
    if [[ -n $HTTP_PORT ]] && curl -sf -m 2 "http://127.0.0.1:$HTTP_PORT/readyz" >/dev/null 2>&1; then
      WAIT_MS=$(( $(now_ms) - $1 ))
      return 0
    fi
    sleep 0.05
  done
  return 1
}

acked_total() { [[ -f $ACKED ]] && awk '{s += $2 - $1} END {print s + 0}' "$ACKED" || echo 0; }
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2" | head -1; }

READY_MS=()
KILLS_LOAD=0 KILLS_MID_INGEST=0 KILLS_STARTUP=0 RECOVERED=0 SET_ASIDE=0 NOT_READY=0
LOST=0 WRONG=0 NEVER=0 CHECKED=0 SNAPSHOT_SHORT=0 ACKED_AT_SET_ASIDE=0
FAIL_REASONS=()

# One start + check. Sets CHECK_LINE. Returns 1 if not ready.
start_and_check() { # $1 = label
  local t0 ms
  t0=$(now_ms)
  start_server "$WORK/server-$1.log"
  if ! wait_ready "$t0"; then
    NOT_READY=$((NOT_READY + 1)); FAIL_REASONS+=("$1:not_ready")
    tail -20 "$LOG" >&2 || true
    return 1
  fi
  ms=$WAIT_MS
  READY_MS+=("$ms")
  local aside=0
  if grep -q 'event=index_set_aside' "$LOG"; then
    aside=1; SET_ASIDE=$((SET_ASIDE + 1))
    ACKED_AT_SET_ASIDE=$((ACKED_AT_SET_ASIDE + $(acked_total)))
    [[ -f $ACKED ]] && mv "$ACKED" "$ACKED.set-aside-$1"
  fi
  grep -q 'event=index_recovering' "$LOG" && RECOVERED=$((RECOVERED + 1))
  CHECK_LINE=$(client check --target "127.0.0.1:$GRPC_PORT" --acked "$ACKED" --blocks "$BLOCKS" \
    --sample 2000 --never 100 || true)
  local missing wrong never checked total prefixes
  missing=$(kv missing "$CHECK_LINE"); wrong=$(kv wrong_hint "$CHECK_LINE")
  never=$(kv never_reported_hint "$CHECK_LINE"); checked=$(kv checked "$CHECK_LINE")
  total=$(kv acked_total "$CHECK_LINE")
  LOST=$((LOST + ${missing:-0})); WRONG=$((WRONG + ${wrong:-0})); NEVER=$((NEVER + ${never:-0}))
  CHECKED=$((CHECKED + ${checked:-0}))
  prefixes=$(curl -sf -m 10 "http://127.0.0.1:$SNAP_PORT/snapshot" | grep -o '"totalPrefixes":[0-9]*' \
    | sed 's/.*://' || true)
  prefixes=${prefixes:--1}
  if (( prefixes < ${total:-0} * BLOCKS )); then SNAPSHOT_SHORT=$((SNAPSHOT_SHORT + 1)); fi
  [[ -z $checked ]] && FAIL_REASONS+=("$1:check_failed")
  echo "start=$1 ready_ms=$ms set_aside=$aside recovering=$(grep -c 'event=index_recovering' "$LOG" || true) snapshot_prefixes=$prefixes $CHECK_LINE"
  return 0
}

echo "kill-restart: iterations=$ITERATIONS seed=$SEED work=$WORK"
i=0
while (( i < ITERATIONS )); do
  if (( $(date +%s) > RUN_END )); then FAIL_REASONS+=("run_bound_reached_at_$i"); break; fi
  if (( i % STARTUP_KILL_EVERY == STARTUP_KILL_EVERY - 1 )); then
    # Kill during start-up / recovery, at a random moment before or around readiness.
    start_server "$WORK/server-$i-startup.log"
    sleep "$(awk -v r=$RANDOM 'BEGIN {printf "%.3f", r % 1500 / 1000}')"
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    KILLS_STARTUP=$((KILLS_STARTUP + 1))
    echo "iteration=$i killed_during_startup"
    i=$((i + 1))
    continue
  fi
  if ! start_and_check "$i"; then
    kill -9 "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""; i=$((i + 1)); continue
  fi
  client load --target "127.0.0.1:$GRPC_PORT" --acked "$ACKED" --start $(( (i + 1) * 10000000 )) \
    --blocks "$BLOCKS" --max-chains "$MAX_CHAINS" --rate "$RATE" --max-seconds 30 >"$WORK/load-$i.out" 2>&1 &
  LOAD_PID=$!
  # The kill lands under ingest: after the first acknowledged call, plus a random delay.
  before=$(acked_total); waited=0
  while (( $(acked_total) == before && waited < 600 )) && kill -0 "$LOAD_PID" 2>/dev/null; do
    sleep 0.1; waited=$((waited + 1))
  done
  delay_ms=$(( RANDOM % MAX_KILL_DELAY_MS ))
  sleep "$(awk -v d=$delay_ms 'BEGIN {printf "%.3f", d / 1000}')"
  kill -9 "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  wait "$LOAD_PID" 2>/dev/null || true
  LOAD_PID=""
  KILLS_LOAD=$((KILLS_LOAD + 1))
  grep -q 'stop=server_gone\|stop=send_failed' "$WORK/load-$i.out" && KILLS_MID_INGEST=$((KILLS_MID_INGEST + 1))
  echo "iteration=$i kill_after_ms=$delay_ms $(cat "$WORK/load-$i.out" | tail -1)"
  i=$((i + 1))
done

# Final restart + check, then graceful SIGTERM under load.
GRACEFUL="not_run"
if start_and_check final; then
  client load --target "127.0.0.1:$GRPC_PORT" --acked "$ACKED" --start 9000000000 --blocks "$BLOCKS" \
    --max-chains 100000000 --rate "$RATE" --max-seconds 30 --lookups 2 >"$WORK/load-graceful.out" 2>&1 &
  LOAD_PID=$!
  before=$(acked_total); waited=0
  while (( $(acked_total) == before && waited < 600 )) && kill -0 "$LOAD_PID" 2>/dev/null; do
    sleep 0.1; waited=$((waited + 1))
  done
  sleep 1
  kill -TERM "$SERVER_PID"
  t0=$(now_ms)
  rc=0; wait "$SERVER_PID" || rc=$?
  stop_ms=$(( $(now_ms) - t0 ))
  SERVER_PID=""
  wait "$LOAD_PID" || true
  LOAD_PID=""
  load_line=$(tail -1 "$WORK/load-graceful.out")
  done_line=$(grep -c 'graceful_shutdown_done' "$LOG" || true)
  marker=no; [[ -e $INDEX.open ]] && marker=yes
  failed=$(kv lookups_failed "$load_line")
  if start_and_check reopen; then
    reopen_line=$CHECK_LINE
    recovering=$(grep -c 'event=index_recovering' "$LOG" || true)
    missing=$(kv missing "$reopen_line")
    GRACEFUL="exit=$rc stop_ms=$stop_ms shutdown_done=$done_line open_marker_left=$marker reopen_recovery=$recovering reopen_missing=${missing:-?} $load_line"
    if [[ $done_line -lt 1 || $marker == yes || $recovering -ne 0 || ${missing:-1} -ne 0 || ${failed:-1} -ne 0 ]]; then
      FAIL_REASONS+=("graceful")
    fi
    kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""
  else
    FAIL_REASONS+=("graceful_reopen_not_ready")
  fi
else
  FAIL_REASONS+=("final_not_ready")
fi

sorted=$(printf '%s\n' "${READY_MS[@]}" | sort -n)
n=${#READY_MS[@]}
p50=$(sed -n "$(( (n + 1) / 2 ))p" <<<"$sorted")
max=$(tail -1 <<<"$sorted")
(( WRONG > 0 )) && FAIL_REASONS+=("wrong_hints")
(( NEVER > 0 )) && FAIL_REASONS+=("never_reported_hints")
(( LOST > 0 )) && FAIL_REASONS+=("acknowledged_lost")
(( SNAPSHOT_SHORT > 0 )) && FAIL_REASONS+=("snapshot_short")

echo "---- summary"
echo "iterations=$ITERATIONS kills_under_load=$KILLS_LOAD kills_mid_ingest_call=$KILLS_MID_INGEST kills_during_startup=$KILLS_STARTUP"
echo "restarts_ready=$n not_ready=$NOT_READY recovered_unclean=$RECOVERED set_aside=$SET_ASIDE acked_lost_to_set_aside=$ACKED_AT_SET_ASIDE"
echo "ready_ms_p50=${p50:-?} ready_ms_max=${max:-?} ready_timeout_s=$READY_TIMEOUT"
echo "acked_chains=$(acked_total) lookups_checked=$CHECKED acked_missing=$LOST wrong_hints=$WRONG never_reported_hints=$NEVER snapshot_short=$SNAPSHOT_SHORT"
echo "graceful: $GRACEFUL"
if (( ${#FAIL_REASONS[@]} > 0 )); then
  echo "RESULT=FAIL ${FAIL_REASONS[*]}"
  exit 1
fi
echo "RESULT=PASS"
