#!/usr/bin/env bash
# Builds the README's Kafka job the way a user does: a project of its own (this directory, the
# README's pom.xml and OrdersJob.java verbatim) against the library installed in the local Maven
# repository, then checks what its shaded jar holds: the library, the Kafka connector and client
# (compile scope), and none of Flink's own classes (provided).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# the README shows these two files; they must not drift apart
python3 - "$repo/README.md" "$here" <<'PY'
import sys, pathlib
readme = pathlib.Path(sys.argv[1]).read_text()
here = pathlib.Path(sys.argv[2])
def block(start):
    a = readme.index(start)
    return readme[a + readme[a:].index("\n") + 1 : readme.index("```", a + 3)]
for path, start in [("pom.xml", "```xml\n<project"), ("src/main/java/com/example/OrdersJob.java", "```java\npackage com.example;")]:
    if block(start) != (here / path).read_text():
        sys.exit(f"examples/kafka-job/{path} differs from the README's block")
PY

(cd "$repo" && mvn -q -B -ntp -pl flink-source-backfill/flink-source-backfill-kafka -am -DskipTests install)
rm -rf "$here/target"
(cd "$here" && mvn -q -B -ntp package)
listing=$(unzip -l "$here/target/orders-job-1.0.jar")
for class in com/example/OrdersJob.class dev/sourcebackfill/source/BackfillSource.class \
    dev/sourcebackfill/source/kafka/KafkaBackfill.class \
    org/apache/flink/connector/kafka/source/enumerator/initializer/OffsetsInitializer.class \
    org/apache/kafka/clients/consumer/KafkaConsumer.class; do
  grep -q " $class\$" <<<"$listing" || { echo "[job-jar] missing $class" >&2; exit 1; }
done
for class in org/apache/flink/streaming/api/environment/StreamExecutionEnvironment.class \
    org/apache/flink/connector/base/source/reader/SourceReaderBase.class \
    org/apache/flink/api/common/typeinfo/TypeInformation.class; do
  if grep -q " $class\$" <<<"$listing"; then echo "[job-jar] holds Flink's own $class" >&2; exit 1; fi
done
if grep -q ' dev/sourcebackfill/source/datagen/' <<<"$listing"; then
  echo "[job-jar] holds the datagen log, which a Kafka job does not depend on" >&2; exit 1
fi
echo "[job-jar] PASSED: the README's Kafka job builds on its own; its jar holds the library, the Kafka connector and client, and no Flink class"
