package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.config.IntakeFactory;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.FarAppend;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.dropwizard.testing.ConfigOverride;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's views and actions on far records (docs/redis-store.md, "The far tier"), on the real broker and Redis:
 * records written to the intake and stored far (their entries and versions in Redis, their payload in the intake's
 * log) before the bridge starts, as the intake stores them, so the bridge's intake reads on after them. Nothing in the
 * bridge thaws them on its own here: where a test needs the later hour's thaw, it stores the record as the thaw would
 * ({@link #thawAsItsHourWould}), under the owner's epoch, and checks that the thaw drops what an action already did.
 */
@ExtendWith(RealServersExtension.class)
class FarAdminIT {

    private static final int PARTITIONS = 4;
    private static final long DAY = 24 * 3_600_000L;
    /** The shard the synthetic count entries go to. */
    private static final int COUNT_SHARD = 3;

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

    private static TestNames names;
    private static KafkaClient kafka;
    private static TestBridge bridge;
    private static RedisDelayStore store;
    private static OffsetReader reader;
    private static RecordTranslator translator;
    private static KafkaClient.Collector delivered;
    private static String target;
    private static String bulkTarget;
    private static String bulkOther;
    private static int app;
    private static ShardRouter router;
    private static long bulkFrom;
    private static final Map<String, Far> FAR = new HashMap<>();

    @BeforeAll
    static void start(TestServers servers) throws Exception {
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
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        ConfigOverride.config("api.token", Http.TOKEN))
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

    @AfterAll
    static void stop() throws Exception {
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
    private static void produce(String name, boolean explicit, int partition, long delay, String to) {
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
        FAR.put(
                name,
                new Far(name, id, explicit, partition, sent.offset(), sent.timestamp(), sent.timestamp() + delay, to));
    }

    /**
     * Stores every record far, with the position marks the intake writes behind them, and commits the group's
     * offsets at the end of the intake: the bridge starts reading after them, as after a restart.
     */
    private static void storeFarAndCommit(String bootstrap) throws Exception {
        List<WriteOp> ops = new ArrayList<>();
        for (Far f : FAR.values()) {
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

    private static long endOffset(Admin admin, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(names.intake(), partition);
        return admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    /** Stores one far record hot as its hour's thaw would (read back from the intake, under the owner's epoch). */
    private static WriteResult thawAsItsHourWould(Far f) throws Exception {
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

    private static List<KafkaClient.Received> deliveredWithKey(Far f) {
        return delivered.matching(r -> f.key().equals(r.key()));
    }

    /** Delivered exactly once, and still once after the record's hour was thawed. */
    private static KafkaClient.Received deliveredOnceEvenAfterItsHourThaws(Far f) throws Exception {
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

    // ------------------------------------------------------------------------------------------- counts

    @Test
    void countsShowFarRecordsBesideHotOnes() {
        JsonNode before = get(app, "/shards").json();
        long farBefore = before.get("far").asLong();
        long shardBefore = before.get("shards").get(COUNT_SHARD).get("far").asLong();
        assertTrue(farBefore >= FAR.size(), "every record written far is counted: " + before);
        JsonNode histogramBefore = get(app, "/pending/histogram").json();
        long hour = store.now() / FarEntry.HOUR_MILLIS;
        // synthetic entries (no record behind them): 3 due in 4 to 5 days, 2 in 9 to 10 days
        FarAppend.append(
                store,
                COUNT_SHARD,
                List.of(
                        new FarEntry(COUNT_SHARD, 1_000_001, (hour + 100) * FarEntry.HOUR_MILLIS + 5),
                        new FarEntry(COUNT_SHARD, 1_000_002, (hour + 100) * FarEntry.HOUR_MILLIS + 6),
                        new FarEntry(COUNT_SHARD, 1_000_003, (hour + 101) * FarEntry.HOUR_MILLIS),
                        new FarEntry(COUNT_SHARD, 1_000_004, (hour + 220) * FarEntry.HOUR_MILLIS),
                        new FarEntry(COUNT_SHARD, 1_000_005, (hour + 221) * FarEntry.HOUR_MILLIS + 9)));

        JsonNode after = get(app, "/shards").json();
        assertEquals(farBefore + 5, after.get("far").asLong(), after.toString());
        assertEquals(
                shardBefore + 5, after.get("shards").get(COUNT_SHARD).get("far").asLong(), after.toString());
        assertEquals(before.get("pending").asLong(), after.get("pending").asLong(), "far records are not hot");

        JsonNode histogram = get(app, "/pending/histogram").json();
        assertEquals(bucket(histogramBefore, "next week", "far") + 3, bucket(histogram, "next week", "far"));
        assertEquals(bucket(histogramBefore, "next week", "count") + 3, bucket(histogram, "next week", "count"));
        assertEquals(bucket(histogramBefore, "next 30 days", "far") + 2, bucket(histogram, "next 30 days", "far"));
        JsonNode one = get(app, "/pending/histogram?shard=" + COUNT_SHARD).json();
        long farInShard = 0;
        for (JsonNode b : one.get("buckets")) {
            farInShard += b.get("far").asLong();
        }
        assertEquals(shardBefore + 5, farInShard, one.toString());

        JsonNode summary = get(app, "/status/summary").json();
        assertEquals(farBefore + 5, summary.get("far").asLong());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode gauges = get(bridge.adminPort(), "/metrics").json().get("gauges");
            assertEquals(farBefore + 5, gauges.get("delay.far").get("value").asLong());
            assertEquals(
                    shardBefore + 5,
                    gauges.get("delay.far.shard-" + COUNT_SHARD).get("value").asLong());
        });
        String prometheus = get(bridge.adminPort(), "/prometheus").body();
        assertTrue(
                prometheus.contains("delay_far_by_shard{shard=\"" + COUNT_SHARD + "\"} " + (shardBefore + 5) + ".0"),
                prometheus);
    }

    private static long bucket(JsonNode histogram, String label, String field) {
        for (JsonNode b : histogram.get("buckets")) {
            if (b.get("label").asText().equals(label)) {
                return b.get(field).asLong();
            }
        }
        throw new AssertionError("no bucket " + label + " in " + histogram);
    }

    // ------------------------------------------------------------------------------------------- reads

    @Test
    void getShowsAFarRecordWithItsDueTimeOriginAndPayload() {
        for (Far f : List.of(FAR.get("get-default"), FAR.get("get-explicit"))) {
            Http.Reply reply = get(app, "/messages/" + f.id());
            assertEquals(200, reply.status(), reply.toString());
            JsonNode m = reply.json();
            assertEquals(f.id(), m.get("id").asText());
            assertEquals("far", m.get("state").asText());
            assertEquals("far", m.get("tier").asText());
            assertEquals(router.shardOf(f.id()), m.get("shard").asInt());
            assertEquals(f.dueAt(), m.get("dueAt").asLong(), m.toString());
            assertEquals(
                    Envelope.origin(names.intake(), f.partition(), f.offset()),
                    m.get("origin").asText());
            assertEquals(target, m.get("target").asText());
            assertEquals(f.key(), m.get("key").asText());
            assertEquals(("value of " + f.name()).length(), m.get("valueBytes").asInt());
            assertEquals("trace-id", m.get("headers").get(0).get("name").asText());
            assertEquals(1, m.get("headers").size(), "control headers are not the record's: " + m);
        }
        Far explicit = FAR.get("get-explicit");
        JsonNode redisOnly =
                get(app, "/messages/" + explicit.id() + "?intake=false").json();
        assertEquals("far", redisOnly.get("state").asText());
        assertEquals(explicit.dueAt(), redisOnly.get("dueAt").asLong());
        assertEquals("not read", redisOnly.get("payload").asText());
        assertTrue(redisOnly.get("target") == null, redisOnly.toString());

        // a default id whose record exists but is not far (another id's offset), and one past the log's end
        Far other = FAR.get("get-explicit");
        assertEquals(
                404,
                get(app, "/messages/" + names.intake() + "-" + other.partition() + "-" + other.offset())
                        .status());
        assertEquals(404, get(app, "/messages/" + names.intake() + "-0-999999").status());
    }

    // ------------------------------------------------------------------------------------------- changes

    @Test
    void fireNowDeliversAFarRecordAtOnceAndItsHourDoesNotDeliverItAgain() throws Exception {
        for (Far f : List.of(FAR.get("fire-default"), FAR.get("fire-explicit"))) {
            long before = System.currentTimeMillis();
            Http.Reply reply = call("POST", app, "/messages/" + f.id() + "/fire-now", null, BEARER);
            assertEquals(200, reply.status(), reply.toString());
            assertEquals("far", reply.json().get("tier").asText());
            KafkaClient.Received got = deliveredOnceEvenAfterItsHourThaws(f);
            assertTrue(got.receivedAt() - before < 10_000, "delivered at once");
            assertEquals("t-" + f.name(), got.header("trace-id"), "the record's own headers");
        }
    }

    @Test
    void aRescheduledFarRecordIsDeliveredOnceAtItsNewTime() throws Exception {
        for (Far f : List.of(FAR.get("move-default"), FAR.get("move-explicit"))) {
            Http.Reply reply = call("POST", app, "/messages/" + f.id() + "/reschedule", "{\"delay\":\"2s\"}", BEARER);
            assertEquals(200, reply.status(), reply.toString());
            long newDue = reply.json().get("dueAt").asLong();
            JsonNode hot = get(app, "/messages/" + f.id()).json();
            assertEquals("hot", hot.get("tier").asText(), hot.toString());
            assertEquals(newDue, hot.get("dueAt").asLong());
            KafkaClient.Received got = deliveredOnceEvenAfterItsHourThaws(f);
            assertEquals(Long.toString(newDue), got.header(DelayHeaders.DUE_AT), "delivered at the new due time");
            assertTrue(got.receivedAt() >= newDue - 50, "never early");
        }
    }

    @Test
    void aCancelledFarRecordIsGoneAndItsHourDropsIt() throws Exception {
        for (Far f : List.of(FAR.get("cancel-default"), FAR.get("cancel-explicit"))) {
            assertEquals(200, get(app, "/messages/" + f.id()).status());
            Http.Reply reply = call("DELETE", app, "/messages/" + f.id(), null, BEARER);
            assertEquals(200, reply.status(), reply.toString());
            assertTrue(reply.json().get("cancelled").asBoolean());
            assertEquals(404, get(app, "/messages/" + f.id()).status(), "cancelled: " + f);
            WriteResult thawed = thawAsItsHourWould(f);
            assertFalse(
                    thawed == WriteResult.STORED || thawed == WriteResult.REPLACED,
                    "the hour's thaw stored a cancelled record: " + thawed);
            assertEquals(404, get(app, "/messages/" + f.id()).status(), "not hot after its hour's thaw");
            assertEquals(
                    404,
                    call("POST", app, "/messages/" + f.id() + "/fire-now", null, BEARER)
                            .status());
            assertTrue(deliveredWithKey(f).isEmpty());
        }
    }

    @Test
    void bulkCancelReachesFarRecordsOfTheTargetInTheRange() throws Exception {
        String body = "{\"target\":\"" + bulkTarget + "\",\"dueFrom\":\"" + bulkFrom + "\",\"dueTo\":\""
                + (bulkFrom + 30 * 60_000) + "\",\"limit\":100}";
        Http.Reply reply = call("POST", app, "/messages/cancel", body, BEARER);
        assertEquals(200, reply.status(), reply.toString());
        JsonNode r = reply.json();
        StringBuilder states = new StringBuilder(r.toString());
        for (String name : List.of("bulk-a", "bulk-b", "bulk-c", "bulk-d", "bulk-other-target")) {
            states.append("\n")
                    .append(FAR.get(name))
                    .append(" shard ")
                    .append(router.shardOf(FAR.get(name).id()))
                    .append(": ")
                    .append(get(app, "/messages/" + FAR.get(name).id()).body());
        }
        assertEquals(4, r.get("cancelled").asInt(), states.toString());
        assertEquals(4, r.get("farCancelled").asInt(), r.toString());
        assertTrue(r.get("farExamined").asInt() >= 5, "the other target's record was read too: " + r);
        for (String name : List.of("bulk-a", "bulk-b", "bulk-c", "bulk-d")) {
            Far f = FAR.get(name);
            assertEquals(404, get(app, "/messages/" + f.id()).status(), name);
            WriteResult thawed = thawAsItsHourWould(f);
            assertFalse(
                    thawed == WriteResult.STORED || thawed == WriteResult.REPLACED,
                    name + ": its hour's thaw stored a cancelled record: " + thawed);
            assertEquals(
                    404,
                    call("POST", app, "/messages/" + f.id() + "/fire-now", null, BEARER)
                            .status(),
                    name);
        }
        // another target and a later due time stay far; thawed by their hour, they are delivered
        for (String name : List.of("bulk-other-target", "bulk-later")) {
            Far f = FAR.get(name);
            assertEquals(
                    "far", get(app, "/messages/" + f.id()).json().get("state").asText(), name);
            assertEquals(WriteResult.STORED, thawAsItsHourWould(f), name);
            assertEquals(
                    200,
                    call("POST", app, "/messages/" + f.id() + "/fire-now", null, BEARER)
                            .status());
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> deliveredWithKey(f).size() == 1);
        }
        Http.Reply again = call("POST", app, "/messages/cancel", body, BEARER);
        assertEquals(0, again.json().get("cancelled").asInt(), again.toString());
        for (String name : List.of("bulk-a", "bulk-b", "bulk-c", "bulk-d")) {
            assertTrue(deliveredWithKey(FAR.get(name)).isEmpty(), name);
        }
    }
}
