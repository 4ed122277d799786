#!/usr/bin/env bash
# End-to-end check on a real standalone Flink cluster assembled from Maven artifacts:
# a JobManager and TaskManagers (one slot each) as separate JVMs on 127.0.0.1, the examples' shaded jar
# submitted with Flink's CLI (the class behind bin/flink), a TaskManager killed with SIGKILL during
# backfill, a stop-with-savepoint and a resubmission at another parallelism, the backfill metrics
# read through the REST API, and the job's exactly-once file output checked.
# Then the archive phase, the Iceberg phase, the SQL phase, and the coexistence phases (the SQL jar
# beside Flink's flink-sql-connector-kafka); docs/cluster.md lists them.
# Every process it starts is stopped by PID on exit, also when a step fails.
# E2E_ONLY runs some phases alone: a comma-separated list of main (the first phase: a TaskManager
# killed, a savepoint, a rescale), archive (the adaptive scheduler's rescale and the archive
# phase), iceberg (the Iceberg phase), sql (the SQL phase and the two coexistence phases) and
# coexist (the two coexistence phases); unset, every phase runs. E2E_COEXIST_MODES picks the
# coexistence phases: lib (both jars in the cluster's lib/), add-jar (both with ADD JAR), or both
# (the default, "lib add-jar"). E2E_MAVEN_ARGS is passed to
# every mvn (e.g. -o, or -Pflink-1.20 for a cluster of another Flink line: .ci/run runs
# main,coexist on 1.20 so),
# MAVEN_OPTS as mvn itself reads it (e.g. -Dmaven.repo.local=...). E2E_RESUME_MAVEN_ARGS (e.g.
# -Pflink-2.2) moves the main phase's job to another Flink line: its savepoint is resumed on a new
# cluster of that line with the job jar built for it (.ci/run moves the 1.20 job to 2.2 so).
set -euo pipefail
# fd 4: the script's stderr, for checks that run where wait_for silences their output
exec 4>&2

phases=,
for phase in $(echo "${E2E_ONLY:-main,archive,iceberg,sql}" | tr ',' ' '); do
  case "$phase" in
    main|archive|iceberg|coexist) phases="$phases$phase," ;;
    sql) phases="${phases}sql,coexist," ;;
    *) echo "[e2e] E2E_ONLY must list main, archive, iceberg, sql or coexist, separated by commas (or be unset for every phase), was '$E2E_ONLY'" >&2; exit 2 ;;
  esac
done
[ "$phases" != , ] || { echo "[e2e] E2E_ONLY names no phase: '$E2E_ONLY'" >&2; exit 2; }
coexist_modes=${E2E_COEXIST_MODES:-lib add-jar}
modes_named=0
for mode in $coexist_modes; do
  case "$mode" in lib|add-jar) modes_named=$((modes_named + 1)) ;; *) echo "[e2e] E2E_COEXIST_MODES must list lib and/or add-jar, separated by spaces, was '$E2E_COEXIST_MODES'" >&2; exit 2 ;; esac
done
[ "$modes_named" -gt 0 ] || { echo "[e2e] E2E_COEXIST_MODES names no mode: '$E2E_COEXIST_MODES'" >&2; exit 2; }
runs() { case "$phases" in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
if [ -n "${E2E_RESUME_MAVEN_ARGS:-}" ] && ! runs main; then
  echo "[e2e] E2E_RESUME_MAVEN_ARGS moves the main phase's job: E2E_ONLY must include main" >&2; exit 2
fi
# shellcheck disable=SC2086
mvn() { command mvn ${E2E_MAVEN_ARGS:-} "$@"; }

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$repo/examples/target/e2e"
pids=()
t0=$(date +%s)

step() { echo "[e2e +$(( $(date +%s) - t0 ))s] $*"; }
cleanup() {
  for pid in "${pids[@]:-}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

step "building the job jar and the cluster's lib/"
rm -rf "$work" && mkdir -p "$work/conf" "$work/log" "$work/out"
# one reactor, so that the library's modules resolve from it (nothing needs to be installed); the
# provided scope is what a Flink distribution's lib/ holds (the library modules' own provided
# dependencies are a subset of the examples'); the Iceberg phase's job has a jar of its own
job_modules=examples
if runs archive; then job_modules=$job_modules,flink-source-backfill/flink-source-backfill-cli; fi
if runs iceberg; then job_modules=$job_modules,examples/e2e/iceberg-job; fi
(cd "$repo" && mvn -q -B -ntp -pl "$job_modules" -am -DskipTests package dependency:copy-dependencies \
    -DincludeScope=provided -DoutputDirectory="$work/lib")
# the class paths of a Kafka broker run as a local process (the archive and Iceberg phases) and of
# Iceberg's REST catalog run as one (the Iceberg phase)
(cd "$repo" && mvn -q -B -ntp -pl examples/archive-quickstart,examples/e2e/iceberg-catalog -am -DskipTests package \
    dependency:build-classpath -Dmdep.outputFile=target/runtime.classpath -DincludeScope=runtime)
cp "$here/log4j.properties" "$work/conf/log4j.properties"
# the examples' shaded jar; its version carries the Flink line it was built for (0.1.0-2.2-SNAPSHOT):
# the one just built is the newest (another line's may lie beside it)
jar=$(ls -t "$repo"/examples/target/flink-source-backfill-examples-*.jar | grep -v -e '/original-' -e '-classes\.jar$' | head -n 1)
# the Iceberg phase's job jar (examples/e2e/iceberg-job), the same way
if runs iceberg; then
  iceberg_jar=$(ls -t "$repo"/examples/e2e/iceberg-job/target/flink-source-backfill-e2e-iceberg-job-*.jar | grep -v '/original-' | head -n 1)
fi
# the backfill client (the archive phase pauses and resumes its job with it)
if runs archive; then
  cli_jar=$(ls -t "$repo"/flink-source-backfill/flink-source-backfill-cli/target/flink-source-backfill-cli-*-app.jar | head -n 1)
fi
backfill() { java -jar "$cli_jar" "$@"; }

rpc_port=$(free_port); rest_port=$(free_port)
opens="--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED --add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
write_config() { # $1: default or adaptive scheduler
cat > "$work/conf/config.yaml" <<YAML
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $rpc_port
jobmanager.bind-host: 127.0.0.1
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $rest_port
taskmanager.host: 127.0.0.1
taskmanager.bind-host: 127.0.0.1
taskmanager.numberOfTaskSlots: 1
jobmanager.memory.process.size: 1024m
taskmanager.memory.process.size: 1280m
taskmanager.cpu.cores: 2
execution.checkpointing.interval: 1s
# the REST API's metrics fresh within half a second (10 s by default): the phases read them
metrics.fetcher.update-interval: 500
execution.checkpointing.dir: file://$work/checkpoints
state.savepoints.dir: file://$work/savepoints
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 20
restart-strategy.fixed-delay.delay: 1s
heartbeat.timeout: 8000
heartbeat.interval: 1000
env.java.opts.all: $opens
YAML
if [ "$1" = adaptive ]; then
  cat >> "$work/conf/config.yaml" <<YAML
jobmanager.scheduler: adaptive
jobmanager.adaptive-scheduler.resource-stabilization-timeout: 1s
jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling: 0s
jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout: 0s
jobmanager.adaptive-scheduler.rescale-trigger.max-delay: 0s
YAML
fi
}
write_config default
cp_lib="$work/lib/*"

start_jm() {
  FLINK_CONF_DIR="$work/conf" java $opens -Xmx768m -Dlog.file="$work/log/jobmanager.log" \
    -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -cp "$cp_lib" \
    org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint --configDir "$work/conf" \
    > "$work/log/jobmanager.out" 2>&1 &
  pids+=($!)
}
start_tm() {
  local name=$1 params jvm dyn
  params=$(FLINK_CONF_DIR="$work/conf" java $opens -cp "$cp_lib" \
    org.apache.flink.runtime.util.bash.BashJavaUtils GET_TM_RESOURCE_PARAMS --configDir "$work/conf" \
    2>/dev/null | grep BASH_JAVA_UTILS_EXEC_RESULT: | sed 's/BASH_JAVA_UTILS_EXEC_RESULT://')
  jvm=$(echo "$params" | sed -n 1p); dyn=$(echo "$params" | sed -n 2p)
  FLINK_CONF_DIR="$work/conf" java $opens $jvm -Dlog.file="$work/log/$name.log" \
    -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -cp "$cp_lib" \
    org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$work/conf" $dyn -D "taskmanager.resource-id=$name" \
    > "$work/log/$name.out" 2>&1 &
  echo $!
}
flink() { FLINK_CONF_DIR="$work/conf" java $opens -cp "$cp_lib" org.apache.flink.client.cli.CliFrontend "$@"; }
rest() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "http://127.0.0.1:$rest_port$1"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
wait_for() { # description, timeout seconds, command
  local what=$1 limit=$2; shift 2
  local end=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -gt "$end" ]; then echo "[e2e] timed out waiting for $what" >&2; return 1; fi
    sleep 0.5
  done
}
job_running() { # every vertex RUNNING
  rest "/jobs/$job" | json "'ok' if d['state']=='RUNNING' and all(v['status']=='RUNNING' for v in d['vertices']) else exit(1)"
}
slots_at_least() { rest /overview | json "'ok' if d['slots-total']>=$1 else exit(1)"; }
source_vertex=datagen-log
backfill_metric() { # sum (or $2: min, max) of a source metric over its subtasks
  local vid agg=${2:-sum}
  vid=$(rest "/jobs/$job" | json "[v['id'] for v in d['vertices'] if '$source_vertex' in v['name']][0]")
  local name
  name=$(rest "/jobs/$job/vertices/$vid/subtasks/metrics" | json "[m['id'] for m in d if m['id'].endswith('backfill.$1')][0]")
  rest "/jobs/$job/vertices/$vid/subtasks/metrics?get=$name&agg=$agg" | json "int(d[0]['$agg'])"
}

failure_seen() { rest "/jobs/$job" | json "'ok' if d['timestamps'].get('RESTARTING', 0) > 0 else exit(1)"; }
job_finished() { rest "/jobs/$job" | json "'ok' if d['state']=='FINISHED' else (exit(2) if d['state'] in ('FAILED','CANCELED') else exit(1))"; }
# The failures a job went through, as its exception history lists them (a rescale is none). A
# killed TaskManager may cause more than one: a task redeployed to it before the JobManager knows it
# is gone fails again. So each failure must come from the killed TaskManager (it ran there, or it
# names its data or RPC port), and there must be one at least; with nothing killed, none.
killed_ports=""
kill_tm() { # pid, resource id: remembers its ports, then SIGKILL
  killed_ports=$(rest "/taskmanagers" | json "' '.join(str(p) for t in d['taskmanagers'] if t['id']=='$2' for p in (t['dataPort'], t['path'].split(':')[-1].split('/')[0]))")
  [ -n "$killed_ports" ] || { echo "[e2e] no TaskManager $2 to kill" >&2; exit 1; }
  kill -9 "$1"
}
expect_failures() { # job, "none" or "killed", what
  local verdict
  verdict=$(rest "/jobs/$1/exceptions" | python3 -c '
import json, sys
entries = json.load(sys.stdin)["exceptionHistory"]["entries"]
ports, expected = sys.argv[1].split(), sys.argv[2]
def from_killed(e):
    return any(e.get("endpoint", "").endswith(":" + p) or (":" + p) in e.get("stacktrace", "") for p in ports)
if expected == "none":
    print("ok 0" if not entries else "bad %d failures, expected none" % len(entries))
else:
    other = [e["exceptionName"] for e in entries if not from_killed(e)]
    print("bad failures not from the killed TaskManager: %s" % other if other else ("ok %d" % len(entries) if entries else "bad no failure"))
' "$killed_ports" "$2")
  case "$verdict" in
    ok*) step "$3: ${verdict#ok } failure(s), all from what was injected" ;;
    *) echo "[e2e] FAILED: $3: ${verdict#bad }" >&2; rest "/jobs/$1/exceptions" >&2; exit 1 ;;
  esac
}

broker_ready() { # ready, or a failed step at once if its process ended (wait_for hides stdout and stderr)
  grep -q 'BROKER READY' "$work/log/broker.out" && return 0
  if ! kill -0 "$broker_pid" 2>/dev/null; then
    { echo "[e2e] the broker process ended before it was ready:"; tail -25 "$work/log/broker.out"; } >&4
    exit 1
  fi
  return 1
}
start_broker() { # topic, records per partition: a broker process with 4 partitions of them
  # the file goes before the broker starts: the background redirect truncates it later, and the
  # READY line of an earlier phase's broker must not be read for this one's
  rm -f "$work/log/broker.out"
  java -Xmx768m -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -Dlog.file="$work/log/broker.log" \
    -cp "$(cat "$repo/examples/archive-quickstart/target/runtime.classpath")" \
    dev.sourcebackfill.source.kafka.InProcessKafka "$1" "$2" > "$work/log/broker.out" 2>&1 &
  broker_pid=$!; pids+=("$broker_pid")
  wait_for "the broker and its 4 x $2 records" 180 broker_ready
  bootstrap=$(grep -o 'BROKER READY [^ ]*' "$work/log/broker.out" | awk '{print $3}')
}
# the exactly-once check of the ExactlyOnceCheckJob's output (the main and adaptive phases)
check_output() {
  local out=$1 committed complete violations bad partitions lines
  committed=$(find "$out" -type f ! -name '.*' | sort)
  cat /dev/null $committed > "$out.txt"
  violations=$(grep -c '^VIOLATION' "$out.txt" || true)
  complete=$(grep '^COMPLETE' "$out.txt" | sort)
  bad=$(echo "$complete" | awk '$3 != $5' | wc -l)
  partitions=$(echo "$complete" | awk '{print $2}' | sort -u | wc -l)
  lines=$(echo "$complete" | wc -l)
  echo "$complete"
  if [ "$violations" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$partitions" -ne 8 ] || [ "$lines" -ne 8 ]; then
    echo "[e2e] FAILED: $violations violations, $bad wrong counts, $partitions partitions, $lines COMPLETE lines" >&2
    exit 1
  fi
}
if runs main; then
step "starting a JobManager and two TaskManagers on 127.0.0.1 (REST port $rest_port)"
start_jm
tm1=$(start_tm taskmanager-1); pids+=("$tm1")
tm2=$(start_tm taskmanager-2); pids+=("$tm2")
# one slot each, so that the job's two subtasks run on both and the kill hits one of them
wait_for "2 slots" 60 slots_at_least 2

epoch=$(( $(date +%s) * 1000 ))
args=(--output "file://$work/out" --epoch "$epoch" --partitions 8 --history 400000 --rate 2000 --live-records 70000 --max-rate-per-subtask 20000)
step "submitting the job with flink run at parallelism 2"
submit_out=$(flink run -d -p 2 -c dev.sourcebackfill.examples.ExactlyOnceCheckJob "$jar" "${args[@]}")
job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
[ -n "$job" ] || { echo "$submit_out"; exit 1; }
wait_for "the job to run" 60 job_running
wait_for "backfill metrics" 60 backfill_metric backfilledRecords
step "metrics: backfilledRecords=$(backfill_metric backfilledRecords) splitsBackfilling=$(backfill_metric splitsBackfilling) splitsFinished=$(backfill_metric splitsFinished)"
[ "$(backfill_metric splitsBackfilling)" -gt 0 ] || { echo "[e2e] not backfilling any more: make --history larger" >&2; exit 1; }
metric_ids() { # the backfill metric ids of one source subtask and of the enumerator, as REST shows them
  local vid
  vid=$(rest "/jobs/$job" | json "[v['id'] for v in d['vertices'] if 'datagen-log' in v['name']][0]")
  rest "/jobs/$job/vertices/$vid/metrics" | json "' '.join(sorted(m['id'] for m in d if m['id'].startswith('0.') and '.backfill.' in m['id'] and ('partition-0.' in m['id'] or '.split.' not in m['id'])))"
  rest "/jobs/$job/vertices/$vid/jm-operator-metrics" 2>/dev/null | json "' '.join(sorted(m['id'] for m in d if 'backfill' in m['id']))" || echo "(no jm-operator-metrics endpoint)"
}
step "metric ids: $(metric_ids | tr '\n' ' ')"

step "killing TaskManager 1 with SIGKILL during backfill, starting a new one"
kill_tm "$tm1" taskmanager-1
tm3=$(start_tm taskmanager-3); pids+=("$tm3")
wait_for "the job to notice the lost TaskManager" 120 failure_seen
wait_for "the job to recover" 120 job_running
step "recovered; metrics: backfilledRecords=$(backfill_metric backfilledRecords) splitsBackfilling=$(backfill_metric splitsBackfilling)"
[ "$(backfill_metric splitsBackfilling)" -gt 0 ] || { echo "[e2e] backfill ended before the savepoint: make --history larger" >&2; exit 1; }

step "stopping the job with a savepoint during backfill"
savepoint=""
for attempt in $(seq 1 20); do
  if out=$(flink stop --savepointPath "file://$work/savepoints" "$job" 2>&1); then
    savepoint=$(echo "$out" | grep -o 'file:[^ ]*savepoint-[^ ]*' | tail -1); break
  fi
  sleep 1
done
[ -n "$savepoint" ] || { echo "[e2e] stop-with-savepoint failed" >&2; echo "$out" >&2; exit 1; }
step "savepoint: $savepoint"
expect_failures "$job" killed "the first job (one TaskManager killed)"

flink_version() { ls "$1" | sed -n 's/^flink-runtime-\(.*\)\.jar$/\1/p'; }
resume_jar=$jar
if [ -n "${E2E_RESUME_MAVEN_ARGS:-}" ]; then
  # the move to another Flink line (README "Flink lines"): the savepoint resumed on a new cluster
  # of that line, with the job jar built for it; built in a copy of the sources, so that this
  # tree's target/ keeps the line the later phases run on
  step "moving the job to the Flink line of '$E2E_RESUME_MAVEN_ARGS': the cluster stopped; its job jar and lib/ built in a copy of the sources"
  cleanup; pids=()
  rm -rf "$work/resume-src" "$work/resume-lib" && mkdir -p "$work/resume-src"
  tar -C "$repo" --exclude=target --exclude=.git -cf - . | tar -C "$work/resume-src" -xf -
  # E2E_MAVEN_ARGS but its profiles (e.g. -o), then the other line's
  resume_args=$(for a in ${E2E_MAVEN_ARGS:-}; do case "$a" in -P*) ;; *) printf '%s ' "$a" ;; esac; done)
  # shellcheck disable=SC2086
  (cd "$work/resume-src" && command mvn $resume_args $E2E_RESUME_MAVEN_ARGS -q -B -ntp -pl examples -am -DskipTests package \
      dependency:copy-dependencies -DincludeScope=provided -DoutputDirectory="$work/resume-lib")
  resume_jar=$(ls -t "$work"/resume-src/examples/target/flink-source-backfill-examples-*.jar | grep -v -e '/original-' -e '-classes\.jar$' | head -n 1)
  cp_lib="$work/resume-lib/*"
  start_jm
  tm4=$(start_tm taskmanager-resume-1); pids+=("$tm4")
  tm5=$(start_tm taskmanager-resume-2); pids+=("$tm5")
  tm6=$(start_tm taskmanager-resume-3); pids+=("$tm6")
  step "a cluster of Flink $(flink_version "$work/resume-lib") is up (from Flink $(flink_version "$work/lib")), job jar $(basename "$resume_jar")"
else
  tm4=$(start_tm taskmanager-4); pids+=("$tm4")
fi
wait_for "3 slots" 60 slots_at_least 3
step "resubmitting from the savepoint at parallelism 3"
submit_out=$(flink run -d -s "$savepoint" -p 3 -c dev.sourcebackfill.examples.ExactlyOnceCheckJob "$resume_jar" "${args[@]}")
job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
[ -n "$job" ] || { echo "$submit_out"; exit 1; }
wait_for "the restored job to finish" 300 job_finished
step "finished"
expect_failures "$job" none "the restored job"
cp_lib="$work/lib/*"

step "checking the exactly-once output"
check_output "$work/out"
if [ -n "${E2E_RESUME_MAVEN_ARGS:-}" ]; then
  step "PASSED: 8 partitions complete exactly once, no violation, the job stopped with a savepoint on Flink $(flink_version "$work/lib") and resumed on Flink $(flink_version "$work/resume-lib")"
else
  step "PASSED: 8 partitions complete exactly once, no violation"
fi
fi

# the adaptive scheduler's rescale and the archive phase
if runs archive; then

step "restarting the cluster with the adaptive scheduler"
cleanup; pids=()
write_config adaptive
start_jm
tm1=$(start_tm taskmanager-a1); pids+=("$tm1")
tm2=$(start_tm taskmanager-a2); pids+=("$tm2")
tm3=$(start_tm taskmanager-a3); pids+=("$tm3")
wait_for "3 slots" 60 slots_at_least 3
epoch=$(( $(date +%s) * 1000 ))
args=(--output "file://$work/out-adaptive" --epoch "$epoch" --partitions 8 --history 400000 --rate 2000 --live-records 70000 --max-rate-per-subtask 20000)
submit_out=$(flink run -d -p 2 -c dev.sourcebackfill.examples.ExactlyOnceCheckJob "$jar" "${args[@]}")
job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
[ -n "$job" ] || { echo "$submit_out"; exit 1; }
wait_for "the job to run" 60 job_running
wait_for "backfill metrics" 60 backfill_metric backfilledRecords
step "adaptive: running, splitsBackfilling=$(backfill_metric splitsBackfilling); PUT /jobs/<id>/resource-requirements for parallelism 3"
body=$(rest "/jobs/$job" | json "__import__('json').dumps({v['id']: {'parallelism': {'lowerBound': 1, 'upperBound': 3}} for v in d['vertices']})")
python3 -c 'import sys, urllib.request; r = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="PUT", headers={"Content-Type": "application/json"}); urllib.request.urlopen(r, timeout=10).read()' \
  "http://127.0.0.1:$rest_port/jobs/$job/resource-requirements" "$body"
at_parallelism_3() { rest "/jobs/$job" | json "'ok' if all(v['parallelism']==3 and v['status']=='RUNNING' for v in d['vertices']) else exit(1)"; }
wait_for "parallelism 3" 120 at_parallelism_3
wait_for "backfill metrics at parallelism 3" 60 backfill_metric backfilledRecords
step "adaptive: rescaled to 3 mid-backfill, splitsBackfilling=$(backfill_metric splitsBackfilling)"
wait_for "the rescaled job to finish" 300 job_finished
expect_failures "$job" none "the rescaled job"
check_output "$work/out-adaptive"
step "PASSED (adaptive scheduler): 8 partitions complete exactly once, no violation"

step "archive phase: a Kafka broker as a local process, an archive on the local file system"
cleanup; pids=()
write_config default
start_jm
tm1=$(start_tm taskmanager-r1); pids+=("$tm1")
tm2=$(start_tm taskmanager-r2); pids+=("$tm2")
start_broker orders 100000
# the archive a Kafka-to-files sink would have written: partition p holds offsets [0, archived[p])
python3 - "$work/archive" <<'PY'
import os, sys
archived = [80000, 60000, 40000, 0]
for p, n in enumerate(archived):
    d = os.path.join(sys.argv[1], "orders", "partition=%d" % p)
    os.makedirs(d, exist_ok=True)
    for start in range(0, n, 20000):
        with open(os.path.join(d, "orders+%d+%010d.json" % (p, start)), "w") as f:
            for o in range(start, min(n, start + 20000)):
                f.write("archive|%d|%d\n" % (p, o))
PY
wait_for "2 slots" 60 slots_at_least 2
source_vertex=archive-and-topic
step "archive phase: submitting the archive check job (broker $bootstrap)"
control="$work/archive-control/orders.control"
# 2,000 records a second per subtask: the 180,000 archived records take at least 45 s of reading,
# which must outlast the time before the pause takes hold and after the resume (the kill below
# needs archive left; at 5,000 a run on a busy machine read it all before the kill)
submit_out=$(flink run -d -p 2 -c dev.sourcebackfill.examples.ArchiveCheckJob "$jar" --archive "file://$work/archive" \
  --bootstrap-servers "$bootstrap" --topic orders --records 100000 --output "file://$work/out-archive" --max-rate-per-subtask 2000 \
  --control "$control")
job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
[ -n "$job" ] || { echo "$submit_out"; exit 1; }
wait_for "the job to run" 60 job_running
wait_for "backfill metrics" 60 backfill_metric backfilledRecords
step "archive phase: reading the archive, backfilledRecords=$(backfill_metric backfilledRecords) splitsBackfilling=$(backfill_metric splitsBackfilling)"
# the backfill client against the running job: its status, a pause (no archive record read while
# partition 3, which has no archive, is read live), a resume
status_json() { backfill status --rest "http://127.0.0.1:$rest_port" --job "$job" --source archive-and-topic --json; }
step "archive phase: the backfill client's status while the archive is read:"
backfill status --rest "http://127.0.0.1:$rest_port" --job "$job" --source archive-and-topic
backfill pause --control "$control"
t_pause=$(date +%s%N)
job_paused() { status_json | json "'ok' if d['sources'][0]['paused'] else exit(1)"; }
wait_for "the pause to reach the job" 60 job_paused
t_paused=$(date +%s%N)
# partition 3's next offset; 100000 once it ended (an ended split is not listed)
live_offset() { status_json | json "([s['nextOffset'] for s in d['sources'][0]['splits'] if s['id'].endswith('-3')] + [100000])[0]"; }
# records fetched before the pause still drain through the throttle: wait until none comes
backfill_still() { local a; a=$(backfill_metric backfilledRecords); sleep 2; [ "$(backfill_metric backfilledRecords)" = "$a" ]; }
wait_for "the records fetched before the pause to drain" 60 backfill_still
before=$(backfill_metric backfilledRecords); live_before=$(live_offset)
sleep 5
# partition 3 read live: its next offset goes up, or it reached the topic's end. The REST metrics
# are refreshed every 10 s, and a split that ended keeps its last next offset there (its reader
# no longer reports it): the enumerator's counts then say no split is left reading live. The
# archive read is counted from before the 5 s above to after the wait
live_moved() { local now; now=$(live_offset); [ "$now" -gt "$live_before" ] || [ "$now" -ge 100000 ]; }
no_live_split() { status_json | json "'ok' if d['sources'][0]['splitsFinished'] + d['sources'][0]['splitsCachingUp'] == 0 else exit(1)"; }
live_or_ended() { live_moved || no_live_split; }
wait_for "partition 3 to read a live record while the backfill is paused" 60 live_or_ended || true
after=$(backfill_metric backfilledRecords); live_after=$(live_offset)
backfill status --rest "http://127.0.0.1:$rest_port" --job "$job" --source archive-and-topic
[ "$before" = "$after" ] || { echo "[e2e] FAILED (archive phase): the paused backfill read $(( after - before )) archive records in 5 s" >&2; exit 1; }
live_or_ended || { echo "[e2e] FAILED (archive phase): partition 3 read no live record while the backfill was paused ($live_before -> $live_after), and a split is still read live" >&2; exit 1; }
backfill resume --control "$control"
t_resume=$(date +%s%N)
backfill_grew() { [ "$(backfill_metric backfilledRecords)" -gt "$after" ]; }
wait_for "the backfill to go on" 60 backfill_grew
t_resumed=$(date +%s%N)
step "archive phase: PAUSE measured: applied $(( (t_paused - t_pause) / 1000000 )) ms after 'backfill pause' (control file read every 1 s); backfilledRecords stayed $before for 5 s while partition 3's live offset went $live_before -> $live_after; RESUME: the backfill went on $(( (t_resumed - t_resume) / 1000000 )) ms after 'backfill resume'"
[ "$(backfill_metric splitsBackfilling)" -gt 0 ] || { echo "[e2e] the archive was read before the kill: make it larger" >&2; exit 1; }
step "archive phase: killing TaskManager r1 with SIGKILL during the archive read (backfilledRecords=$(backfill_metric backfilledRecords) of 180000, splitsBackfilling=$(backfill_metric splitsBackfilling)), starting a new one"
kill_tm "$tm1" taskmanager-r1
tm3=$(start_tm taskmanager-r3); pids+=("$tm3")
wait_for "the job to notice the lost TaskManager" 120 failure_seen
wait_for "the job to recover" 120 job_running
wait_for "the archive check job to finish" 300 job_finished
expect_failures "$job" killed "the archive check job (one TaskManager killed)"
committed=$(find "$work/out-archive" -type f ! -name '.*' | sort)
cat /dev/null $committed > "$work/out-archive.txt"
cat "$work/out-archive.txt"
expected="COMPLETE 0 100000 expected 100000 archive 80000
COMPLETE 1 100000 expected 100000 archive 60000
COMPLETE 2 100000 expected 100000 archive 40000
COMPLETE 3 100000 expected 100000 archive 0"
if [ "$(grep -c '^VIOLATION' "$work/out-archive.txt" || true)" -ne 0 ] || [ "$(grep '^COMPLETE' "$work/out-archive.txt" | sort)" != "$expected" ]; then
  echo "[e2e] FAILED (archive phase): expected exactly these lines and no VIOLATION:" >&2; echo "$expected" >&2; exit 1
fi
step "PASSED (archive phase): 4 partitions complete exactly once, the archived offsets read from the archive, a TaskManager killed during the archive read"
fi

if runs iceberg; then
step "Iceberg phase: a Kafka broker and Iceberg's REST catalog as local processes, a table in Redpanda's layout on the local file system"
cleanup; pids=()
# (the REST API's metrics are at most 500 ms old, write_config: the kill below must land during
# the table read that they show)
write_config default
start_jm
tm1=$(start_tm taskmanager-i1); pids+=("$tm1")
tm2=$(start_tm taskmanager-i2); pids+=("$tm2")
start_broker orders 100000
# the table the topic was written into: partition p holds offsets [0, rows[p]) (values
# table|p|o), the topic all of [0, 100000); 10,000 offsets per commit, files by the hour of the
# timestamp, each mixing partitions 0-2
table_rows=(80000 60000 40000 0)
rm -f "$work/log/catalog.out"
java -Xmx512m -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -Dlog.file="$work/log/catalog.log" \
  -cp "$(cat "$repo/examples/e2e/iceberg-catalog/target/runtime.classpath"):$repo/examples/e2e/iceberg-catalog/target/classes" \
  dev.sourcebackfill.examples.iceberg.IcebergCatalogServer "$work/warehouse" redpanda.orders \
  "$(IFS=,; echo "${table_rows[*]}")" 10000 > "$work/log/catalog.out" 2>&1 &
pids+=($!)
catalog_ready() { grep -q 'CATALOG READY' "$work/log/catalog.out"; }
wait_for "the REST catalog and its table" 180 catalog_ready
catalog_uri=$(grep -o 'CATALOG READY [^ ]*' "$work/log/catalog.out" | awk '{print $3}')
step "Iceberg phase: $(grep 'CATALOG READY' "$work/log/catalog.out")"
table_total=$(( table_rows[0] + table_rows[1] + table_rows[2] + table_rows[3] ))
wait_for "2 slots" 60 slots_at_least 2
source_vertex=iceberg-and-topic
# the table's rows at 3,000 a second per reader (the source's own backfill rate limit, asked once
# per fetch of at most 500 rows), in chunks of about 20,000 rows that both readers take part of;
# the topic unthrottled
rate=3000
poll=500
confirmed_before=$(grep -c 'Forward mode confirmed by completed checkpoint' "$work/log/jobmanager.log" 2>/dev/null || true)
step "Iceberg phase: submitting the Iceberg check job (catalog $catalog_uri, broker $bootstrap)"
submit_out=$(flink run -d -p 2 -c dev.sourcebackfill.examples.IcebergCheckJob "$iceberg_jar" --catalog-uri "$catalog_uri" \
  --table redpanda.orders --bootstrap-servers "$bootstrap" --topic orders --records 100000 \
  --output "file://$work/out-iceberg" --backfill-rate-per-subtask "$rate" --chunk-size 20000 \
  --max-records-per-poll "$poll" --snapshot-tag e2e-backfill)
job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
[ -n "$job" ] || { echo "$submit_out"; exit 1; }
wait_for "the job to run" 60 job_running
# both readers (one on each TaskManager) reading the table's chunks
table_rows_read() { [ "$(backfill_metric backfilledRecords min)" -gt 0 ]; }
wait_for "rows read from the table by both readers" 60 table_rows_read
# the snapshot tag (issue 34, item 2), asked of the REST catalog during the table read: set on the
# pinned snapshot, the table's current one (nothing commits to it here)
# the table's metadata as the REST catalog serves it (the REST API's own path, under the catalog's
# URI), and its refs as "name=type:snapshot" words
table_metadata() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "${catalog_uri%/}/v1/namespaces/redpanda/tables/orders"; }
table_refs() { table_metadata | json "' '.join('%s=%s:%s' % (n, r['type'], r['snapshot-id']) for n, r in sorted(d['metadata'].get('refs', {}).items()))"; }
refs=$(table_refs)
current=$(table_metadata | json "d['metadata']['current-snapshot-id']")
step "Iceberg phase: the table's refs during the table read: $refs"
echo " $refs " | grep -q " e2e-backfill=tag:$current " \
  || { echo "[e2e] FAILED (Iceberg phase): no tag 'e2e-backfill' on the pinned snapshot $current during the table read" >&2; exit 1; }
read_so_far=$(backfill_metric backfilledRecords)
step "Iceberg phase: reading the table, backfilledRecords=$read_so_far of $table_total (the least on one reader $(backfill_metric backfilledRecords min)) splitsBackfilling=$(backfill_metric splitsBackfilling)"
# at most 1 s old, each reader up to a fetch ahead of its rate: at least 2 s of the table read
# (both readers) must be left at the kill
[ "$read_so_far" -le $(( table_total - 2 * 2 * rate - 2 * poll )) ] \
  || { echo "[e2e] the table was (nearly) read before the kill ($read_so_far of $table_total rows): make it larger" >&2; exit 1; }
step "Iceberg phase: killing TaskManager i1 with SIGKILL during the table read, starting a new one"
kill_tm "$tm1" taskmanager-i1
tm3=$(start_tm taskmanager-i3); pids+=("$tm3")
wait_for "the job to notice the lost TaskManager" 120 failure_seen
wait_for "the job to recover" 120 job_running
# the job went on from a checkpoint taken during the table read, not from its start
restored=$(rest "/jobs/$job/checkpoints" | json "(d.get('latest') or {}).get('restored') and d['latest']['restored']['id']")
[ -n "$restored" ] && [ "$restored" != None ] && [ "$restored" != False ] \
  || { echo "[e2e] FAILED (Iceberg phase): the recovered job was not restored from a checkpoint" >&2; exit 1; }
step "Iceberg phase: recovered from checkpoint $restored"
wait_for "the Iceberg check job to finish" 300 job_finished
expect_failures "$job" killed "the Iceberg check job (one TaskManager killed)"
committed=$(find "$work/out-iceberg" -type f ! -name '.*' | sort)
cat /dev/null $committed > "$work/out-iceberg.txt"
cat "$work/out-iceberg.txt"
expected="COMPLETE 0 100000 expected 100000 table 80000
COMPLETE 1 100000 expected 100000 table 60000
COMPLETE 2 100000 expected 100000 table 40000
COMPLETE 3 100000 expected 100000 table 0"
if [ "$(grep -c '^VIOLATION' "$work/out-iceberg.txt" || true)" -ne 0 ] || [ "$(grep -v '^VIOLATION' "$work/out-iceberg.txt" | sort)" != "$expected" ]; then
  echo "[e2e] FAILED (Iceberg phase): expected exactly these lines and no VIOLATION:" >&2; echo "$expected" >&2; exit 1
fi
# removed once forward mode was confirmed: the bounded job ends right after that checkpoint, and
# the enumerator's close (which Flink runs after the job's end is reported) waits for the removal
tag_gone() { refs=$(table_refs) && echo " $refs " | grep -q " main=" && ! echo " $refs " | grep -q " $1="; }
# the job ended with forward mode confirmed (issue 34: Flink may close the enumerator before its
# own notification of the job's last checkpoint is handled; the readers at their end pass it on and
# close waits for it); the enumerator's DEBUG lines in the job manager's log name the splits that
# kept each snapshot from confirming it
forward_confirmed() { [ "$(grep -c 'Forward mode confirmed by completed checkpoint' "$work/log/jobmanager.log" 2>/dev/null || true)" -gt "${confirmed_before:-0}" ]; }
wait_for "the enumerator's confirmation of forward mode" 30 forward_confirmed \
  || { echo "[e2e] FAILED (Iceberg phase): the job ended without confirming forward mode; last snapshot: $(grep 'Snapshot for checkpoint' "$work/log/jobmanager.log" | tail -1 | sed 's/.* - //')" >&2; exit 1; }
wait_for "the tag 'e2e-backfill' removed after the job" 30 tag_gone e2e-backfill \
  || { echo "[e2e] FAILED (Iceberg phase): the tag 'e2e-backfill' is still on the table after forward mode was confirmed: $(table_refs)" >&2; exit 1; }
refs=$(table_refs)
step "Iceberg phase: the table's refs after the job: $refs"
step "PASSED (Iceberg phase): 4 partitions complete exactly once, the table's offsets from the table through the REST catalog, the topic's from the handover on, a TaskManager killed during the table read, the pinned snapshot tagged during the read (and the tag removed once forward mode was confirmed)"

# Two jobs in a row on this session cluster, each reading the table through Iceberg's JDBC catalog
# (JdbcCatalog on the REST catalog's own SQLite file, where its backend catalog "backend" keeps
# the table) with SQLite's JDBC driver in its own job jar (issue 34, defect 8: DriverManager
# registers drivers once per JVM from the first job's class loader, and the second job's catalog
# found "No suitable driver" and restarted once). Neither may fail or restart, and each output
# must be exact.
jdbc_job() { # the run's name, then more options of the job
  step "Iceberg phase, JDBC catalog: submitting the Iceberg check job ($1) with the driver in its jar"
  submit_out=$(flink run -d -p 2 -c dev.sourcebackfill.examples.IcebergCheckJob "$iceberg_jar" --catalog-type jdbc \
    --catalog-name backend --catalog-uri "jdbc:sqlite:$work/warehouse/catalog.db" \
    --catalog-warehouse "file://$work/warehouse" --table redpanda.orders --bootstrap-servers "$bootstrap" \
    --topic orders --records 100000 --output "file://$work/out-iceberg-$1" --chunk-size 20000 "${@:2}")
  job=$(echo "$submit_out" | grep -o 'JobID [0-9a-f]\{32\}' | awk '{print $2}')
  [ -n "$job" ] || { echo "$submit_out"; exit 1; }
  wait_for "the Iceberg check job ($1) to finish" 180 job_finished
  step "Iceberg phase, JDBC catalog: job $1 $(rest "/jobs/$job" | json "'%s, RESTARTING at %s' % (d['state'], d['timestamps'].get('RESTARTING', 0))"), exception history: $(rest "/jobs/$job/exceptions" | json "len(d['exceptionHistory']['entries'])") entries"
  expect_failures "$job" none "the Iceberg check job ($1, JDBC catalog)"
  [ "$(rest "/jobs/$job" | json "d['timestamps'].get('RESTARTING', 0)")" = 0 ] \
    || { echo "[e2e] FAILED (Iceberg phase, JDBC catalog): the job ($1) restarted" >&2; exit 1; }
  committed=$(find "$work/out-iceberg-$1" -type f ! -name '.*' | sort)
  cat /dev/null $committed > "$work/out-iceberg-$1.txt"
  if [ "$(sort "$work/out-iceberg-$1.txt")" != "$expected" ]; then
    cat "$work/out-iceberg-$1.txt" >&2
    echo "[e2e] FAILED (Iceberg phase, JDBC catalog, $1): expected exactly these lines:" >&2; echo "$expected" >&2; exit 1
  fi
}
jdbc_job jdbc-first
# the second in ordered mode (issue 34, item 3): its checker also wants each partition's offsets
# in order, the table's rows first, and writes a VIOLATION line (never expected) for any other;
# its splits carry the pinned snapshot, which its own tag keeps until forward mode
jdbc_job jdbc-second --ordered --snapshot-tag e2e-ordered
wait_for "the ordered job's tag 'e2e-ordered' removed after the job" 30 tag_gone e2e-ordered
step "Iceberg phase, JDBC catalog: the table's refs after the ordered job: $refs"
step "PASSED (Iceberg phase, JDBC catalog): two jobs in a row on one session cluster, each with SQLite's JDBC driver in its own jar, 4 partitions complete exactly once each (the second in ordered mode, offsets in order, its tag removed), neither failed nor restarted"
fi

if runs sql || runs coexist; then

step "building the SQL jar and the SQL phases' lib/"
cleanup; pids=()
(cd "$repo" && mvn -q -B -ntp -pl flink-source-backfill/flink-sql-source-backfill -am -DskipTests package)
sql_jar=$(ls -t "$repo"/flink-source-backfill/flink-sql-source-backfill/target/flink-sql-source-backfill-*.jar | grep -v '/original-' | head -n 1)
# the table jars a distribution's lib/ has, and the SQL client with its gateway
(cd "$repo" && mvn -q -B -ntp -f examples/e2e/sql-client/pom.xml dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$work/sql-lib")
start_gateway() { # on a free port, with the class path in $cp_lib
  gateway_port=$(free_port)
  FLINK_CONF_DIR="$work/conf" java $opens -Dlog.file="$work/log/sql-gateway$1.log" \
    -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -cp "$cp_lib" \
    org.apache.flink.table.gateway.SqlGateway -Dsql-gateway.endpoint.rest.address=127.0.0.1 \
    -Dsql-gateway.endpoint.rest.bind-address=127.0.0.1 -Dsql-gateway.endpoint.rest.port="$gateway_port" \
    > "$work/log/sql-gateway$1.out" 2>&1 &
  pids+=($!)
  wait_for "the SQL gateway" 120 gateway_up
}
gateway_up() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5).read()' "http://127.0.0.1:$gateway_port/v1/info"; }
run_sql_client() { # the SQL file; sets $job to the job its INSERT submitted
  local log="$work/log/sql-client$2.out"
  FLINK_CONF_DIR="$work/conf" java $opens -Dlog.file="$work/log/sql-client$2.log" \
    -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -cp "$cp_lib" \
    org.apache.flink.table.client.SqlClient gateway --endpoint "http://127.0.0.1:$gateway_port" \
    -f "$1" > "$log" 2>&1 \
    || { cat "$log" >&2; exit 1; }
  job=$( (grep -o 'Job ID: [0-9a-f]\{32\}' "$log" || true) | awk '{print $3}' | tail -1)
  [ -n "$job" ] || { echo "[e2e] the SQL client submitted no job:" >&2; grep -A3 ERROR "$log" >&2 || cat "$log" >&2; exit 1; }
}
start_sql_broker() { # topic, history and live records per partition: a broker that writes the live records once $work/live.trigger exists
  rm -f "$work/live.trigger" "$work/log/broker.out"
  java -Xmx768m -Dlog4j.configurationFile="file:$work/conf/log4j.properties" -Dlog.file="$work/log/broker-$1.log" \
    -cp "$(cat "$repo/examples/archive-quickstart/target/runtime.classpath")" \
    dev.sourcebackfill.source.kafka.InProcessKafka "$1" "$2" "$3" "$work/live.trigger" > "$work/log/broker.out" 2>&1 &
  broker_pid=$!; pids+=("$broker_pid")
  wait_for "the broker and its 4 x $2 records of history" 180 broker_ready
  bootstrap=$(grep -o 'BROKER READY [^ ]*' "$work/log/broker.out" | awk '{print $3}')
}

if runs sql; then
step "SQL phase: Flink's SQL client runs examples/sql/kafka-backfill.sql with the SQL jar on a standalone cluster"
cp_lib="$work/lib/*:$work/sql-lib/*"
write_config default
start_jm
tm1=$(start_tm taskmanager-s1); pids+=("$tm1")
tm2=$(start_tm taskmanager-s2); pids+=("$tm2")
start_sql_broker orders 60000 20000
wait_for "2 slots" 60 slots_at_least 2
# the SQL client in gateway mode against Flink's SQL gateway (embedded mode needs flink-python on
# its class path, which is not published for 2.2.1); ADD JAR ships the SQL jar with the job, as
# sql-client.sh -j does
{ echo "ADD JAR '$sql_jar';"
  sed -e "s|\${BOOTSTRAP_SERVERS}|$bootstrap|" \
      -e "s|\${BOUNDED_OFFSETS}|partition:0,offset:80000;partition:1,offset:80000;partition:2,offset:80000;partition:3,offset:80000|" \
      -e "s|\${OUTPUT}|file://$work/out-sql|" "$repo/examples/sql/kafka-backfill.sql"; } > "$work/job.sql"
start_gateway ""
run_sql_client "$work/job.sql" ""
step "SQL phase: INSERT submitted as job $job"
source_vertex=orders
wait_for "the job to run" 60 job_running
wait_for "backfill metrics" 60 backfill_metric backfilledRecords
step "SQL phase: reading history, backfilledRecords=$(backfill_metric backfilledRecords); writing the live records now"
touch "$work/live.trigger"
wait_for "the SQL job to finish" 300 job_finished
expect_failures "$job" none "the SQL job"
python3 - "$work/out-sql" <<'PY' || exit 1
import json, os, sys
seen = {}
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        if name.startswith('.'):
            continue  # in progress, not committed
        with open(os.path.join(root, name)) as f:
            for line in f:
                r = json.loads(line)
                seen.setdefault(r['partition'], []).append((r['offset'], r['value']))
bad = []
for p in range(4):
    rows = sorted(seen.get(p, []))
    offsets = [o for o, _ in rows]
    if offsets != list(range(80000)):
        bad.append('partition %d: %d rows, %d distinct offsets, expected 0..79999 once each' % (p, len(offsets), len(set(offsets))))
    if any(v != 'v%d' % o for o, v in rows):
        bad.append('partition %d: a value does not match its offset' % p)
    print('SQL partition %d: %d rows' % (p, len(rows)))
if bad:
    print('[e2e] FAILED (SQL phase): ' + '; '.join(bad), file=sys.stderr)
    sys.exit(1)
PY
step "PASSED (SQL phase): 4 partitions of 60000 history and 20000 live records each, delivered once each through the SQL client's INSERT into files"
fi

# Coexistence: Flink's own flink-sql-connector-kafka and the SQL jar in one class path, Flink's
# first (its file name sorts first in a lib/ directory), a kafka-backfill table read into a table
# of Flink's kafka connector. Once with both jars in the cluster's lib/, once with both given with
# ADD JAR. The output topic must hold every (partition, offset) of the input once, with its value.
# of the line the cluster runs (E2E_MAVEN_ARGS picks it)
pom_property() { (cd "$repo" && mvn -q -B -ntp -N help:evaluate -Dexpression="$1" -DforceStdout) | sed 's/\x1b\[[0-9;]*m//g'; }
kafka_connector_version=$(pom_property flink-connector-kafka.version)
rm -rf "$work/kafka-jars" && mkdir -p "$work/kafka-jars"
if [ "$(pom_property flink-sql-connector-kafka.served)" = true ]; then
  (cd "$repo" && mvn -q -B -ntp -f examples/e2e/sql-client/pom.xml dependency:copy \
      -Dartifact="org.apache.flink:flink-sql-connector-kafka:$kafka_connector_version" -DoutputDirectory="$work/kafka-jars")
  flink_kafka_jar="$work/kafka-jars/flink-sql-connector-kafka-$kafka_connector_version.jar"
else
  # not served here (the root pom's flink-sql-connector-kafka.served says so): a stand-in
  # assembled as Flink's jar is, from flink-connector-kafka and the Kafka client relocated
  step "building a stand-in for Flink's flink-sql-connector-kafka $kafka_connector_version (examples/e2e/kafka-sql-jar)"
  (cd "$repo" && mvn -q -B -ntp -f examples/e2e/kafka-sql-jar/pom.xml clean package)
  flink_kafka_jar="$work/kafka-jars/flink-sql-connector-kafka-$kafka_connector_version-e2e.jar"
  cp "$repo/examples/e2e/kafka-sql-jar/target/$(basename "$flink_kafka_jar")" "$flink_kafka_jar"
fi
cp "$sql_jar" "$work/kafka-jars/"
our_sql_jar="$work/kafka-jars/$(basename "$sql_jar")"
# the order a lib/ directory listing gives (and bin/config.sh builds the class path in)
[ "$(ls "$work/kafka-jars" | head -1)" = "$(basename "$flink_kafka_jar")" ] \
  || { echo "[e2e] expected Flink's Kafka SQL jar to sort first in $work/kafka-jars" >&2; exit 1; }
topic_tool() { java -cp "$(cat "$repo/examples/archive-quickstart/target/runtime.classpath")" dev.sourcebackfill.source.kafka.DeliveredTopicCheck "$@"; }
job_ended_or_failed() { rest "/jobs/$job" | json "'ok' if d['state'] in ('FINISHED','FAILED','CANCELED') or d['timestamps'].get('RESTARTING', 0) > 0 else exit(1)"; }
job_running_or_failed() { job_running || job_ended_or_failed; }
fail_with_root_cause() { # what, then the job's first failure
  echo "[e2e] FAILED ($1): the job failed:" >&2
  rest "/jobs/$job/exceptions" | json "'\n'.join(d['exceptionHistory']['entries'][0]['stacktrace'].splitlines()[:25]) if d['exceptionHistory']['entries'] else d.get('root-exception', 'no exception recorded')" >&2
  exit 1
}
coexist_phase() { # lib or add-jar
  local mode=$1 history=5000 live=2000
  local total=$(( history + live ))
  step "coexistence phase ($mode): flink-sql-connector-kafka and the SQL jar, Flink's first, kafka-backfill into a kafka table"
  cleanup; pids=()
  if [ "$mode" = lib ]; then
    cp_lib="$work/lib/*:$work/sql-lib/*:$flink_kafka_jar:$our_sql_jar"
  else
    cp_lib="$work/lib/*:$work/sql-lib/*"
  fi
  write_config default
  start_jm
  tm1=$(start_tm "taskmanager-$mode-1"); pids+=("$tm1")
  tm2=$(start_tm "taskmanager-$mode-2"); pids+=("$tm2")
  start_sql_broker orders "$history" "$live"
  topic_tool create "$bootstrap" delivered
  wait_for "2 slots" 60 slots_at_least 2
  local offsets="partition:0,offset:$total;partition:1,offset:$total;partition:2,offset:$total;partition:3,offset:$total"
  { if [ "$mode" = add-jar ]; then echo "ADD JAR '$flink_kafka_jar';"; echo "ADD JAR '$our_sql_jar';"; fi
    cat <<SQL
SET 'execution.runtime-mode' = 'streaming';
SET 'execution.checkpointing.interval' = '1 s';
SET 'parallelism.default' = '2';
CREATE TABLE orders (
  \`value\` STRING,
  \`partition\` INT METADATA VIRTUAL,
  \`offset\` BIGINT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka-backfill',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '$bootstrap',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = '$offsets',
  'format' = 'raw'
);
CREATE TABLE delivered (
  \`partition\` INT,
  \`offset\` BIGINT,
  \`value\` STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'delivered',
  'properties.bootstrap.servers' = '$bootstrap',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'e2e-coexist-$mode',
  'properties.transaction.timeout.ms' = '60000'
);
INSERT INTO delivered SELECT \`partition\`, \`offset\`, \`value\` FROM orders;
SQL
  } > "$work/job-$mode.sql"
  start_gateway "-$mode"
  run_sql_client "$work/job-$mode.sql" "-$mode"
  step "coexistence phase ($mode): INSERT submitted as job $job"
  wait_for "the job to run" 60 job_running_or_failed
  if ! job_running >/dev/null 2>&1; then job_ended_or_failed >/dev/null && [ "$(rest "/jobs/$job" | json "d['state']")" != FINISHED ] && fail_with_root_cause "coexistence phase, $mode"; fi
  step "coexistence phase ($mode): running; writing the live records now"
  touch "$work/live.trigger"
  wait_for "the job to end" 180 job_ended_or_failed
  [ "$(rest "/jobs/$job" | json "d['state']")" = FINISHED ] || fail_with_root_cause "coexistence phase, $mode"
  expect_failures "$job" none "the coexistence job ($mode)"
  topic_tool check "$bootstrap" delivered 4 "$total" \
    || { echo "[e2e] FAILED (coexistence phase, $mode): the output topic does not hold every input record once" >&2; exit 1; }
  step "PASSED (coexistence phase, $mode): 4 partitions of $history history and $live live records each, once each in Flink's kafka sink's topic"
}
for mode in $coexist_modes; do coexist_phase "$mode"; done
fi
step "PASSED (${E2E_ONLY:-every phase}) on Flink $(ls "$work/lib" | sed -n 's/^flink-runtime-\(.*\)\.jar$/\1/p')"
