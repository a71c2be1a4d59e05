package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.RedisSlots;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The bridge on a Redis Cluster of three masters with a replica each, in the default build: two bridges of one group
 * over the 16 shards of the intake, which spread over the three masters by their hash tags; one bridge is killed
 * with kill -9. Master kills: {@code ./campaign.sh --redis cluster --faults redis=2,kill=1} (docs/reliability.md). The long form is
 * {@code ./campaign.sh --redis cluster --faults full}.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class ClusterCampaignIT {

    @TempDir
    Path dir;

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void nothingLostNothingEarlyWhenABridgeIsKilledAndEveryMasterHoldsPendingMessages() throws Exception {
        CampaignOptions options = CampaignOptions.parse(new String[] {
                    "--redis",
                    "cluster",
                    "--bridges",
                    "2",
                    "--partitions",
                    "16",
                    "--records",
                    "5000",
                    "--rate",
                    "250",
                    "--max-delay",
                    "8s",
                    "--lease",
                    "4s",
                    "--fault-gap",
                    "6s",
                    "--faults",
                    "kill=1"
                })
                .withWorkDir(dir);

        CampaignReport report = new Campaign(options).run();
        System.out.print(report.render());

        assertEquals(List.of(), report.violations(), report.render());
        assertEquals(0, report.lost());
        assertEquals(0, report.early());
        assertTrue(report.acknowledged() > 4_900, "the broker acknowledged " + report.acknowledged());
        assertEquals(Map.of(Fault.KILL, 1), report.faults(), "the bridge kill ran");
        assertTrue(
                report.pendingSamples().size() >= 10,
                "sampled while running: " + report.pendingSamples().size());
        assertEquals(
                3,
                report.serversWithPending().size(),
                "every master held pending messages: " + PendingSpread.describe(report.pendingSamples()));
        assertTrue(
                report.leftoversAfterStop().empty(), report.leftoversAfterStop().toString());
    }

    /**
     * Ids are global: a replacement or a cancel that arrives on another intake partition than the message it names
     * (another shard, mostly on another master) still finds it.
     */
    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void cancelsAndReplacementsFindTheirMessageOnAnyShardAndMaster() throws Exception {
        CampaignOptions options = CampaignOptions.parse(new String[] {
                    "--redis", "cluster", "--bridges", "2", "--partitions", "16", "--targets", "1", "--lease", "4s"
                })
                .withWorkDir(dir);
        Campaign campaign = new Campaign(options);
        String target = "campaign-target-0";
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"));
                CampaignRedis redis = CampaignRedis.start(options.redis(), dir.resolve("redis"))) {
            campaign.createTopics(broker.bootstrapServers(), List.of(target));
            BridgeFleet fleet = new BridgeFleet(
                    BridgeConfig.write(options, dir, 1),
                    dir.resolve("bridges"),
                    Map.of("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(), "REDIS_URI", redis.uri()),
                    options,
                    new SplittableRandom(1));
            try {
                fleet.restore(2);
                // healthy is not settled: the second bridge's join moves partitions, and a partition moving while the
                // records below are read may have its replacements read after the messages they name fell due
                awaitSettledGroup(broker.bootstrapServers(), 2, 16);
                runCancelsAndReplacements(broker.bootstrapServers(), target, redis);
            } finally {
                fleet.killAll();
            }
        }
    }

    private void runCancelsAndReplacements(String bootstrap, String target, CampaignRedis redis) throws Exception {
        int ids = 60;
        Map<Integer, Integer> schedulePartition = new HashMap<>();
        Map<Integer, Integer> laterPartition = new HashMap<>();
        long sentAt = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            for (int i = 0; i < ids; i++) {
                // due late (30 s), so a slow intake still reads its replacement or cancel before it falls due: in a
                // CI run beside the fault campaign the intake took 8.8 s to store these 101 records
                RecordMetadata m = producer.send(record(
                                "s-" + i, "first-" + i, target, i % 3 == 2 ? "4000" : "30000", "order-" + i, null))
                        .get();
                schedulePartition.put(i, m.partition());
            }
            for (int i = 0; i < ids; i++) {
                RecordMetadata m = switch (i % 3) {
                    case 0 ->
                        producer.send(record("r-" + i, "second-" + i, target, "4000", "order-" + i, null))
                                .get();
                    case 1 ->
                        producer.send(record("c-" + i, null, null, null, null, "order-" + i))
                                .get();
                    default -> null;
                };
                if (m != null) {
                    laterPartition.put(i, m.partition());
                }
            }
            producer.send(record("marker", "marker", target, "32000", "marker", null))
                    .get();
        }
        // what the test asks of the bridge holds for replacements and cancels read before their message falls due
        awaitIntakeStored(bootstrap, sentAt + 30_000);
        long elsewhere = laterPartition.entrySet().stream()
                .filter(e -> !e.getValue().equals(schedulePartition.get(e.getKey())))
                .count();
        assertTrue(
                elsewhere >= laterPartition.size() / 2,
                "most replacements and cancels arrive on another partition than their message: " + elsewhere);
        Set<String> mastersOfSchedules = new HashSet<>();
        if (redis instanceof CampaignRedis.Cluster cluster) {
            for (int p : schedulePartition.values()) {
                RedisServer master = cluster.cluster()
                        .masterOfSlot(
                                RedisSlots.slotOf(Campaign.KEY_PREFIX + ":{" + Campaign.INTAKE + ":" + p + "}:due"));
                mastersOfSchedules.add(master.uri());
            }
            assertEquals(3, mastersOfSchedules.size(), "the scheduled messages are on every master");
        }

        Map<String, List<String>> delivered = consumeUntilMarkerAndFiveSecondsMore(bootstrap, target);
        for (int i = 0; i < ids; i++) {
            List<String> values = delivered.getOrDefault("order-" + i, List.of());
            switch (i % 3) {
                case 0 ->
                    assertTrue(
                            !values.isEmpty() && values.stream().allMatch(("second-" + i)::equals),
                            "order-" + i + " was replaced: only its second version is delivered, got " + values);
                case 1 -> assertEquals(List.of(), values, "order-" + i + " was cancelled");
                default ->
                    assertTrue(
                            !values.isEmpty() && values.stream().allMatch(("first-" + i)::equals),
                            "order-" + i + " is delivered as scheduled, got " + values);
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        RedisLeftovers left = RedisLeftovers.read(redis.masterUris(), Campaign.KEY_PREFIX, Campaign.INTAKE);
        while (!left.empty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            left = RedisLeftovers.read(redis.masterUris(), Campaign.KEY_PREFIX, Campaign.INTAKE);
        }
        assertTrue(left.empty(), "cancelled and replaced versions leave nothing behind: " + left);
    }

    private static ProducerRecord<String, String> record(
            String key, String value, String target, String delayMs, String id, String cancel) {
        ProducerRecord<String, String> record = new ProducerRecord<>(Campaign.INTAKE, key, value);
        if (target != null) {
            record.headers().add("delay-target", target.getBytes(StandardCharsets.UTF_8));
            record.headers().add("delay-ms", delayMs.getBytes(StandardCharsets.UTF_8));
            record.headers().add("delay-id", id.getBytes(StandardCharsets.UTF_8));
        }
        if (cancel != null) {
            record.headers().add("delay-cancel", cancel.getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }

    /** delay-id to the values delivered with it, in arrival order. */
    private static Map<String, List<String>> consumeUntilMarkerAndFiveSecondsMore(String bootstrap, String target) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, List<String>> delivered = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(target)
                    .forEach(info -> partitions.add(new TopicPartition(target, info.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            long stopAt = Long.MAX_VALUE;
            while (System.nanoTime() < Math.min(deadline, stopAt)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    Header id = r.headers().lastHeader("delay-id");
                    String delayId = id == null ? "?" : new String(id.value(), StandardCharsets.UTF_8);
                    delivered.computeIfAbsent(delayId, k -> new ArrayList<>()).add(r.value());
                    if (delayId.equals("marker") && stopAt == Long.MAX_VALUE) {
                        stopAt = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                    }
                }
            }
        }
        assertTrue(delivered.containsKey("marker"), "the marker, due last, arrived within 120 s: " + delivered);
        return delivered;
    }

    /** Waits until the bridges' group is stable: {@code members} members holding all {@code partitions} of the intake. */
    private static void awaitSettledGroup(String bootstrap, int members, int partitions) throws Exception {
        try (Admin admin = CampaignKafka.admin(bootstrap)) {
            long start = System.nanoTime();
            long deadline = start + Duration.ofSeconds(90).toNanos();
            String seen = "not described";
            while (System.nanoTime() < deadline) {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(Campaign.GROUP))
                        .all()
                        .get(15, TimeUnit.SECONDS)
                        .get(Campaign.GROUP);
                long held = group.members().stream()
                        .flatMap(m -> m.assignment().topicPartitions().stream())
                        .filter(tp -> tp.topic().equals(Campaign.INTAKE))
                        .count();
                if (group.groupState() == GroupState.STABLE
                        && group.members().size() == members
                        && held == partitions) {
                    System.out.printf(
                            "[test] the group settled %d ms after the bridges were healthy%n",
                            (System.nanoTime() - start) / 1_000_000);
                    return;
                }
                seen = group.groupState() + ", " + group.members().size() + " members, " + held + " partitions held";
                Thread.sleep(200);
            }
            throw new AssertionError("the bridges' group did not settle with " + members + " members holding "
                    + partitions + " intake partitions within 90 s: " + seen);
        }
    }

    /**
     * Waits until the bridges' group committed every intake partition to its end (the intake commits a record once it
     * stored it), and fails, saying so, if that came after {@code byMillis}: then a replacement or cancel was read
     * after the message it names fell due, which the bridge cannot undo (a replacement racing its message's delivery).
     */
    private static void awaitIntakeStored(String bootstrap, long byMillis) throws Exception {
        try (Admin admin = CampaignKafka.admin(bootstrap)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < 16; p++) {
                latest.put(new TopicPartition(Campaign.INTAKE, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest)
                    .all()
                    .get(15, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            long deadline = byMillis + 30_000;
            Map<TopicPartition, Long> behind = ends;
            while (System.currentTimeMillis() < deadline) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(Campaign.GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get(15, TimeUnit.SECONDS);
                behind = new TreeMap<>(Comparator.comparing(TopicPartition::partition));
                for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                    OffsetAndMetadata at = committed.get(end.getKey());
                    if (at == null ? end.getValue() > 0 : at.offset() < end.getValue()) {
                        behind.put(end.getKey(), end.getValue());
                    }
                }
                if (behind.isEmpty()) {
                    long late = System.currentTimeMillis() - byMillis;
                    System.out.printf("[test] the intake stored every record %d ms before the first fell due%n", -late);
                    assertTrue(
                            late <= 0,
                            "the intake stored the replacements and cancels " + late
                                    + " ms after the messages they name fell due: the machine was too slow for this test");
                    return;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("the intake did not commit these partitions to their ends: " + behind);
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }
}
