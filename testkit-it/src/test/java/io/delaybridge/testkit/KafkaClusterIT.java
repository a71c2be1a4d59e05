package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class KafkaClusterIT {

    private static final String TOPIC = "replicated";
    private static final String GROUP = "cluster-it";

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aKilledNodesPartitionsAndGroupMoveToTheOthers(@TempDir Path dir) throws Exception {
        try (KafkaCluster cluster = KafkaCluster.start(dir, 3);
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertEquals(
                    3, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            // no replication factor given: the cluster's default, a replica on every node
            admin.createTopics(List.of(new NewTopic(TOPIC, Optional.of(1), Optional.empty())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertEquals(3, partition(admin).replicas().size());
            produce(cluster, 0, 100);
            commit(cluster, 100);

            // kill the node that leads the partition and coordinates the group, if one node does both; else the leader
            int leader = partition(admin).leader().id();
            int coordinator = admin.describeConsumerGroups(List.of(GROUP))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(GROUP)
                    .coordinator()
                    .id();
            KafkaBroker victim = cluster.node(leader);
            long oldPid = victim.pid();
            victim.kill();
            assertFalse(victim.isAlive());

            produce(cluster, 100, 100); // acks=all: the two left are the in-sync replicas
            assertNotEquals(leader, partition(admin).leader().id(), "the leadership moved");
            assertEquals(
                    100, committed(cluster), "the group's offset survived its coordinator (node " + coordinator + ")");
            commit(cluster, 200);
            assertEquals(200, committed(cluster));

            victim.restart();
            assertNotEquals(oldPid, victim.pid());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partition(admin).isr().size() < 3 && System.nanoTime() < deadline) {
                ChildProcesses.pause(100);
            }
            assertEquals(3, partition(admin).isr().size(), "the restarted node caught up: " + partition(admin));
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(cluster, null)) {
                TopicPartition tp = new TopicPartition(TOPIC, 0);
                consumer.assign(List.of(tp));
                assertEquals(200, consumer.endOffsets(List.of(tp)).get(tp));
            }
        }
    }

    /**
     * The topic's partition as a node describes it. A node learns a new topic from the controller's metadata log a
     * moment after the topic is created: until then it answers that it does not know it, and the call is made again
     * (within 30 s).
     */
    private static TopicPartitionInfo partition(Admin admin) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return admin.describeTopics(List.of(TOPIC))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get(TOPIC)
                        .partitions()
                        .get(0);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                ChildProcesses.pause(100);
            }
        }
    }

    private static void produce(KafkaCluster cluster, int from, int count) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        cluster.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static void commit(KafkaCluster cluster, long offset) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(cluster, GROUP)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset)), Duration.ofSeconds(60));
        }
    }

    private static long committed(KafkaCluster cluster) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(cluster, GROUP)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            return consumer.committed(Set.of(tp), Duration.ofSeconds(60))
                    .get(tp)
                    .offset();
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaCluster cluster, String group) {
        Map<String, Object> config = new java.util.HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false));
        if (group != null) {
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
