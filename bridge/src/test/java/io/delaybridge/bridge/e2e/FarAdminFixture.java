package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.config.IntakeFactory;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The far records of {@link FarAdminIT}: written to the intake and stored far (their entries and versions in Redis,
 * their payload in the intake's log) before the bridge starts, as the intake stores them, so the bridge's intake reads
 * on after them; and the thaw of one record as its hour would do it ({@link #thawAsItsHourWould}), under the owner's
 * epoch.
 */
final class FarAdminFixture {

    static final int PARTITIONS = 4;
    private static final long DAY = 24 * 3_600_000L;
    /** A far record as written: its id, intake position, and due time. */
    record Far(
            String name,
            String id,
            boolean explicit,
            int partition,
            long offset,
            long timestamp,
            long dueAt,
            String target) {
        String key() {
            return "key-" + name;
        }
    }

    final TestNames names;
    final KafkaClient kafka;
    TestBridge bridge;
    RedisDelayStore store;
    OffsetReader reader;
    RecordTranslator translator;
    KafkaClient.Collector delivered;
    final String target;
    final String bulkTarget;
    final String bulkOther;
    int app;
    final ShardRouter router;
    long bulkFrom;
    final Map<String, Far> records = new HashMap<>();

    /** Writes the records, stores them far and starts the bridge after them. */
    FarAdminFixture(TestServers servers) throws Exception {
        names = TestNames.unique(servers);
        target = names.target("out");
        bulkTarget = names.target("bulk");
        bulkOther = names.target("bulk-other");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createTopics(2, target, bulkTarget, bulkOther);
        kafka.createTopics(PARTITIONS, names.intake());
        router = new ShardRouter(names.intake(), PARTITIONS);

        long now = System.currentTimeMillis();
        bulkFrom = now + 2 * DAY;
        for (String name : List.of("get", "fire", "move", "cancel")) {
            produce(name + "-default", false, 0, 2 * DAY + 3 * 3_600_000L, target);
            produce(name + "-explicit", true, 1, 2 * DAY + 3 * 3_600_000L, target);
        }
        // the bulk cancel's range is [now + 2 d, now + 2 d + 30 min]
        produce("bulk-a", false, 0, 2 * DAY + 60_000, bulkTarget);
        produce("bulk-b", false, 2, 2 * DAY + 120_000, bulkTarget);
        produce("bulk-c", true, 1, 2 * DAY + 180_000, bulkTarget);
        produce("bulk-d", true, 3, 2 * DAY + 240_000, bulkTarget);
        produce("bulk-other-target", false, 0, 2 * DAY + 300_000, bulkOther);
        produce("bulk-later", true, 2, 2 * DAY + 5 * 3_600_000L, bulkTarget);

        store = RedisDelayStore.connect(RedisStoreOptions.of(servers.redisUri(), names.intake(), PARTITIONS)
                .withKeyPrefix(names.keyPrefix())
                .withCommandTimeout(Duration.ofSeconds(10)));
        storeFarAndCommit(servers.kafkaBootstrap());

        bridge = new TestBridge(
                        names, servers.kafkaBootstrap(), servers.redisUri(), TestBridge.set("api.token", Http.TOKEN))
                .start();
        app = bridge.support().getLocalPort();
        KafkaFactory factory = new KafkaFactory();
        factory.setBootstrapServers(servers.kafkaBootstrap());
        factory.setGroupId(names.group());
        reader = new OffsetReader(
                factory.offsetReaderProperties("test"), names.intake(), Duration.ofSeconds(15), Time.SYSTEM);
        translator =
                new IntakeFactory().build(names.intake(), names.deadletter()).translator();
        delivered = kafka.collect(target, bulkTarget, bulkOther);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (JsonNode shard : get(app, "/shards").json().get("shards")) {
                if (shard.get("owner").isNull() || shard.get("epoch").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    void close() throws Exception {
        if (bridge != null) {
            bridge.close();
        }
        if (reader != null) {
            reader.close();
        }
        if (store != null) {
            store.close();
        }
        kafka.close();
    }

    /** Writes a record to the intake, to be stored far; a default id is {@code <intake>-<p>-<offset>}. */
    private void produce(String name, boolean explicit, int partition, long delay, String to) {
        List<String> headers = new ArrayList<>(
                List.of(DelayHeaders.TARGET, to, DelayHeaders.DELAY_MS, Long.toString(delay), "trace-id", "t-" + name));
        if (explicit) {
            headers.addAll(List.of(DelayHeaders.ID, "far-" + name));
        }
        RecordMetadata sent = kafka.send(
                names.intake(),
                partition,
                ("key-" + name).getBytes(StandardCharsets.UTF_8),
                ("value of " + name).getBytes(StandardCharsets.UTF_8),
                null,
                KafkaClient.headers(headers.toArray(String[]::new)));
        String id = explicit ? "far-" + name : names.intake() + "-" + partition + "-" + sent.offset();
        records.put(
                name,
                new Far(name, id, explicit, partition, sent.offset(), sent.timestamp(), sent.timestamp() + delay, to));
    }

    /**
     * Stores every record far, with the position marks the intake writes behind them, and commits the group's
     * offsets at the end of the intake: the bridge starts reading after them, as after a restart.
     */
    private void storeFarAndCommit(String bootstrap) throws Exception {
        List<WriteOp> ops = new ArrayList<>();
        for (Far f : records.values()) {
            ops.add(new WriteOp.Schedule(
                    f.id(),
                    f.dueAt(),
                    new IntakeOrigin(names.intake(), f.partition(), f.offset()),
                    null,
                    f.timestamp(),
                    true));
        }
        Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
        List<PositionMark> marks = new ArrayList<>();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            for (int p = 0; p < PARTITIONS; p++) {
                long end = endOffset(admin, p);
                ends.put(new TopicPartition(names.intake(), p), new OffsetAndMetadata(end));
                marks.add(new PositionMark(p, PositionMark.UNKNOWN, end));
            }
            List<WriteResult> results = store.write(ops, marks).get(30, TimeUnit.SECONDS);
            assertEquals(
                    List.of(),
                    results.stream().filter(r -> r != WriteResult.STORED).toList(),
                    "all stored far");
            admin.alterConsumerGroupOffsets(names.group(), ends).all().get(30, TimeUnit.SECONDS);
        }
    }

    private long endOffset(Admin admin, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(names.intake(), partition);
        return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    /** Stores one far record hot as its hour's thaw would (read back from the intake, under the owner's epoch). */
    WriteResult thawAsItsHourWould(Far f) throws Exception {
        int shard = router.shardOf(f.id());
        long epoch = store.messageAdmin().epoch(shard).orElseThrow();
        OffsetReader.Position position = new OffsetReader.Position(f.partition(), f.offset());
        ConsumerRecord<byte[], byte[]> record =
                reader.read(List.of(position), Duration.ofSeconds(15)).get(position);
        assertNotNull(record, "the intake still holds " + f);
        WriteOp.Schedule op = (WriteOp.Schedule) translator.translate(record).op();
        return store.far()
                .thaw(shard, epoch, List.of(op))
                .get(30, TimeUnit.SECONDS)
                .get(0);
    }

    List<KafkaClient.Received> deliveredWithKey(Far f) {
        return delivered.matching(r -> f.key().equals(r.key()));
    }

    /** Delivered exactly once, and still once after the record's hour was thawed. */
    KafkaClient.Received deliveredOnceEvenAfterItsHourThaws(Far f) throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(() -> !deliveredWithKey(f).isEmpty());
        WriteResult thawed = thawAsItsHourWould(f);
        assertFalse(
                thawed == WriteResult.STORED || thawed == WriteResult.REPLACED,
                "the hour's thaw stored a record already delivered: " + thawed);
        // the delivery is seen before the pump's ack (batched) removes the message from the in-flight set
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get(app, "/messages/" + f.id()).status() == 404);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> deliveredWithKey(f).size() == 1);
        return deliveredWithKey(f).get(0);
    }
}
