# Sourced by docker/e2e/startup.sh and docker/e2e/runtimes.sh (with $root and $work set, in $root): one Kafka broker
# (the test kit's KafkaBrokerMain) and one redis-server on this host for the bridges they start and time, stopped when
# the script exits; ms, free_port, median, and CreateTopic.java (a LogAppendTime target) in $work.
rm -rf "$work" && mkdir -p "$work"
cd "$root"
ms() { date +%s%3N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done' EXIT

# ---- a broker and a redis-server on this host ---------------------------------------------------------------------
kafka_port=$(free_port) controller_port=$(free_port) redis_port=$(free_port)
bootstrap=127.0.0.1:$kafka_port
cat > "$work/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$work/kafka-logs
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
EOF
./mvnw -B -ntp -o -q -pl testkit dependency:build-classpath -Dmdep.outputFile="$work/testkit.classpath"
java -Xmx512m -cp "testkit/target/classes:$(cat "$work/testkit.classpath")" io.delaybridge.testkit.KafkaBrokerMain \
    "$work/server.properties" > "$work/kafka.log" 2>&1 &
pids+=($!)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync always \
    --maxmemory-policy noeviction --dir "$work" > "$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 120); do kcat -b "$bootstrap" -L > /dev/null 2>&1 && break; sleep 1; done
kcat -b "$bootstrap" -L > /dev/null


cat > "$work/CreateTopic.java" <<'EOF'
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/** CreateTopic <bootstrap> <topic>: one partition, stamped with the broker's append time. */
public class CreateTopic {
    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", args[0]))) {
            admin.createTopics(List.of(new NewTopic(args[1], 1, (short) 1)
                            .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
                    .all()
                    .get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw e;
            }
        }
    }
}
EOF

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
