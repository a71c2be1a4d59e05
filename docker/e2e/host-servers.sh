# Sourced by docker/e2e/startup.sh and docker/e2e/runtimes.sh (with $root and $work set, in $root): one Kafka broker
# (the test kit's KafkaBrokerMain) and one redis-server on this host for the bridges they start and time, stopped when
# the script exits; ms, free_port, median, CreateTopic.java (a LogAppendTime target) in $work, and the steps of one
# timed start (bridge_env, due_now, first_delivery).
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

# ---- one timed start's steps ----------------------------------------------------------------------------------------
# bridge_env <variant>: the bridge's environment for one variant in $env (an array), its ports in $http and $admin
bridge_env() {
    http=$(free_port) admin=$(free_port)
    env=(KAFKA_BOOTSTRAP_SERVERS="$bootstrap" REDIS_URI="redis://127.0.0.1:$redis_port"
        DELAY_INTAKE_TOPIC="startup-$1-intake" DELAY_DEADLETTER_TOPIC="startup-$1-deadletter" DELAY_GROUP_ID="startup-$1"
        DELAY_INSTANCE_ID="startup-$1-1" DELAY_KEY_PREFIX="$1" DELAY_BIND_HOST=127.0.0.1
        DELAY_HTTP_PORT="$http" DELAY_ADMIN_PORT="$admin")
}
# due_now <variant> <round>: one record due now waits in the variant's intake (none on the warm-up)
due_now() {
    [ "$2" = warm-up ] && return 0
    echo "round-$2" | kcat -P -b "$bootstrap" -t "startup-$1-intake" -k "round-$2" -H delay-target="startup-$1-target" \
        -H delay-ms=0
}
# first_delivery <variant> <round> <started>: prints the milliseconds from <started> to the round's record's append
# time on the variant's target. On the warm-up (the bridge creates its intake and deadletter topics) it creates the
# target, a LogAppendTime topic of our own, waits until the bridge on $admin is healthy, and prints 0.
first_delivery() {
    local variant=$1 round=$2 started=$3 target=startup-$1-target first=
    if [ "$round" = warm-up ]; then
        java -cp "$(cat "$work/testkit.classpath")" "$work/CreateTopic.java" "$bootstrap" "$target"
        for _ in $(seq 120); do curl -fs "http://127.0.0.1:$admin/healthcheck" > /dev/null 2>&1 && break; sleep 1; done
        echo 0
        return
    fi
    local deadline=$(( $(date +%s) + 60 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        first=$(kcat -C -b "$bootstrap" -t "$target" -o beginning -e -q -f '%k %T\n' 2> /dev/null \
            | awk -v k="round-$round" '$1 == k {print $2}' | head -1)
        [ -n "$first" ] && break
        sleep 0.1
    done
    [ -n "$first" ] || { echo "round $round of $variant: nothing delivered" >&2; return 1; }
    echo $((first - started))
}
