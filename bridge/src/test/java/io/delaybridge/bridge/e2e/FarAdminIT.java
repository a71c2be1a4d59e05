package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.e2e.FarAdminFixture.Far;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.FarAppend;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The operator's views and actions on far records (docs/redis-store.md, "The far tier"), on the real broker and Redis:
 * records written to the intake and stored far (their entries and versions in Redis, their payload in the intake's
 * log) before the bridge starts, as the intake stores them, so the bridge's intake reads on after them. Nothing in the
 * bridge thaws them on its own here: where a test needs the later hour's thaw, it stores the record as the thaw would
 * ({@link #thawAsItsHourWould}), under the owner's epoch, and checks that the thaw drops what an action already did.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class FarAdminIT {

    /** The shard the synthetic count entries go to. */
    private static final int COUNT_SHARD = 3;

    private static FarAdminFixture fixture;
    private static Map<String, Far> records;
    private static TestNames names;
    private static TestBridge bridge;
    private static RedisDelayStore store;
    private static ShardRouter router;
    private static String target;
    private static String bulkTarget;
    private static long bulkFrom;
    private static int app;

    @BeforeAll
    static void start(TestServers servers) throws Exception {
        fixture = new FarAdminFixture(servers);
        records = fixture.records;
        names = fixture.names;
        bridge = fixture.bridge;
        store = fixture.store;
        router = fixture.router;
        target = fixture.target;
        bulkTarget = fixture.bulkTarget;
        bulkFrom = fixture.bulkFrom;
        app = fixture.app;
    }

    @AfterAll
    static void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static WriteResult thawAsItsHourWould(Far f) throws Exception {
        return fixture.thawAsItsHourWould(f);
    }

    private static List<KafkaClient.Received> deliveredWithKey(Far f) {
        return fixture.deliveredWithKey(f);
    }

    private static KafkaClient.Received deliveredOnceEvenAfterItsHourThaws(Far f) throws Exception {
        return fixture.deliveredOnceEvenAfterItsHourThaws(f);
    }

    // ------------------------------------------------------------------------------------------- counts

    @Test
    void countsShowFarRecordsBesideHotOnes() {
        JsonNode before = get(app, "/shards").json();
        long farBefore = before.get("far").asLong();
        long shardBefore = before.get("shards").get(COUNT_SHARD).get("far").asLong();
        assertTrue(farBefore >= records.size(), "every record written far is counted: " + before);
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
        for (Far f : List.of(records.get("get-default"), records.get("get-explicit"))) {
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
        Far explicit = records.get("get-explicit");
        JsonNode redisOnly =
                get(app, "/messages/" + explicit.id() + "?intake=false").json();
        assertEquals("far", redisOnly.get("state").asText());
        assertEquals(explicit.dueAt(), redisOnly.get("dueAt").asLong());
        assertEquals("not read", redisOnly.get("payload").asText());
        assertTrue(redisOnly.get("target") == null, redisOnly.toString());

        // a default id whose record exists but is not far (another id's offset), and one past the log's end
        Far other = records.get("get-explicit");
        assertEquals(
                404,
                get(app, "/messages/" + names.intake() + "-" + other.partition() + "-" + other.offset())
                        .status());
        assertEquals(404, get(app, "/messages/" + names.intake() + "-0-999999").status());
    }

    // ------------------------------------------------------------------------------------------- changes

    @Test
    void fireNowDeliversAFarRecordAtOnceAndItsHourDoesNotDeliverItAgain() throws Exception {
        for (Far f : List.of(records.get("fire-default"), records.get("fire-explicit"))) {
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
        for (Far f : List.of(records.get("move-default"), records.get("move-explicit"))) {
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
        for (Far f : List.of(records.get("cancel-default"), records.get("cancel-explicit"))) {
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
                    .append(records.get(name))
                    .append(" shard ")
                    .append(router.shardOf(records.get(name).id()))
                    .append(": ")
                    .append(get(app, "/messages/" + records.get(name).id()).body());
        }
        assertEquals(4, r.get("cancelled").asInt(), states.toString());
        assertEquals(4, r.get("farCancelled").asInt(), r.toString());
        assertTrue(r.get("farExamined").asInt() >= 5, "the other target's record was read too: " + r);
        for (String name : List.of("bulk-a", "bulk-b", "bulk-c", "bulk-d")) {
            Far f = records.get(name);
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
            Far f = records.get(name);
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
            assertTrue(deliveredWithKey(records.get(name)).isEmpty(), name);
        }
    }
}
