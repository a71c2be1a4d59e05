package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BASIC;
import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/**
 * The message API, the shard views, the admin tasks and health checks of one bridge on the real broker and Redis:
 * every route with and without credentials, bad requests, and cancels and reschedules that take effect.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class OperationsApiIT {

    private static final int PARTITIONS = 4;
    private static final AtomicInteger IDS = new AtomicInteger();
    private static TestNames names;
    private static KafkaClient kafka;
    private static TestBridge bridge;
    private static KafkaClient.Collector delivered;
    private static String target;
    private static String other;
    private static int app;
    private static int adminPort;
    private static final ListAppender<ILoggingEvent> AUDIT = new ListAppender<>();
    /** Another Redis for a subclass (a cluster): its URI, and what to close after the bridge. */
    static String redisUriOverride;

    static AutoCloseable redisOverride;

    @BeforeAll
    static void start(TestServers servers, TestInfo info) throws ClassNotFoundException {
        // a subclass sets redisUriOverride when it is initialised, which running this inherited method does not do
        Class<?> testClass = info.getTestClass().orElseThrow();
        Class.forName(testClass.getName(), true, testClass.getClassLoader());
        names = TestNames.unique(servers);
        target = names.target("out");
        other = names.target("other");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createTopics(2, target, other);
        bridge = new TestBridge(
                        names,
                        servers.kafkaBootstrap(),
                        redisUriOverride != null ? redisUriOverride : servers.redisUri(),
                        TestBridge.set("api.token", Http.TOKEN),
                        TestBridge.set("api.users." + Http.USER, Http.PASSWORD),
                        TestBridge.set("api.maxBulkCancel", "100"),
                        TestBridge.set("api.maxReplay", "50000"),
                        TestBridge.set("api.maxBodySize", "1KiB"))
                .start();
        app = bridge.support().getLocalPort();
        // the audit lines, captured after the bridge configured logging (WARN in the tests)
        Logger audit = (Logger) LoggerFactory.getLogger("delay-bridge.audit");
        audit.setLevel(Level.INFO);
        AUDIT.start();
        audit.addAppender(AUDIT);
        adminPort = bridge.adminPort();
        delivered = kafka.collect(target, other);
        // every shard has an owner before the tests look at owners and pumping
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode shards = get(app, "/shards").json().get("shards");
            for (JsonNode shard : shards) {
                if (shard.get("owner").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    @AfterAll
    static void stop() throws Exception {
        bridge.close();
        kafka.close();
        if (redisOverride != null) {
            redisOverride.close();
            redisOverride = null;
            redisUriOverride = null;
        }
    }

    private static String schedule(String to, String delay) {
        String id = "ops-" + IDS.incrementAndGet();
        kafka.send(
                names.intake(),
                id,
                "value of " + id,
                null,
                DelayHeaders.TARGET,
                to,
                DelayHeaders.DELAY_MS,
                delay,
                DelayHeaders.ID,
                id,
                "trace-id",
                "t-" + id);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> get(app, "/messages/" + id).status() == 200);
        return id;
    }

    private static void assertAudited(String... parts) {
        List<String> lines =
                AUDIT.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertTrue(
                lines.stream().anyMatch(line -> java.util.Arrays.stream(parts).allMatch(line::contains)),
                "no audit line with " + List.of(parts) + " in " + lines);
    }

    private static List<KafkaClient.Received> deliveredWithKey(String id) {
        return delivered.matching(r -> id.equals(r.key()));
    }

    // ------------------------------------------------------------------------------------------- reads

    @Test
    void getShowsWhereAPendingMessageIsAndWhatItHolds() {
        String id = schedule(target, "10m");
        Http.Reply reply = get(app, "/messages/" + id);
        assertEquals(200, reply.status(), reply.toString());
        JsonNode m = reply.json();
        assertEquals(id, m.get("id").asText());
        assertEquals("pending", m.get("state").asText());
        assertEquals(target, m.get("target").asText());
        assertEquals(0, m.get("attempts").asInt());
        assertEquals(id, m.get("key").asText());
        assertEquals(("value of " + id).length(), m.get("valueBytes").asInt());
        assertTrue(m.get("sizeBytes").asInt() > 0);
        long dueIn = m.get("dueAt").asLong() - System.currentTimeMillis();
        assertTrue(dueIn > 9 * 60_000 && dueIn <= 10 * 60_000 + 1_000, "due in 10 minutes: " + dueIn);
        assertEquals("trace-id", m.get("headers").get(0).get("name").asText());
        assertEquals("t-" + id, m.get("headers").get(0).get("value").asText());
        assertEquals(
                new ShardRouter(names.intake(), PARTITIONS).shardOf(id),
                m.get("shard").asInt());
    }

    @Test
    void anUnknownIdIs404WithTheId() {
        Http.Reply reply = get(app, "/messages/no-such-id");
        assertEquals(404, reply.status());
        assertEquals("no-such-id", reply.json().get("id").asText());
        assertEquals(
                404, call("DELETE", app, "/messages/no-such-id", null, BEARER).status());
        assertEquals(
                404,
                call("POST", app, "/messages/no-such-id/fire-now", null, BEARER).status());
        Http.Reply move = call("POST", app, "/messages/no-such-id/reschedule", "{\"delay\":\"1m\"}", BEARER);
        assertEquals(404, move.status());
        assertEquals("no-such-id", move.json().get("id").asText());
    }

    @Test
    void shardsShowOwnersCountsAndDueTimes() {
        String id = schedule(target, "20m");
        JsonNode reply = get(app, "/shards").json();
        JsonNode shards = reply.get("shards");
        assertEquals(PARTITIONS, shards.size());
        long pending = 0;
        for (JsonNode shard : shards) {
            assertFalse(shard.get("owner").isNull(), "every shard has an owner: " + shard);
            assertTrue(shard.get("pumpedHere").asBoolean(), "one bridge pumps every shard: " + shard);
            assertTrue(shard.get("epoch").asLong() >= 1);
            pending += shard.get("pending").asLong();
        }
        assertEquals(pending, reply.get("pending").asLong());
        int shard = new ShardRouter(names.intake(), PARTITIONS).shardOf(id);
        assertTrue(shards.get(shard).get("pending").asLong() >= 1);
        assertFalse(shards.get(shard).get("nextDueAt").isNull());
    }

    @Test
    void theHistogramCountsPendingMessagesByDueTime() {
        Http.Reply before = get(app, "/pending/histogram");
        long nextHourBefore = bucket(before.json(), "next hour");
        long nextDayBefore = bucket(before.json(), "next day");
        schedule(target, "30m");
        schedule(target, "30m");
        schedule(target, "5h");
        JsonNode after = get(app, "/pending/histogram").json();
        assertEquals(nextHourBefore + 2, bucket(after, "next hour"), after.toString());
        assertEquals(nextDayBefore + 1, bucket(after, "next day"), after.toString());
        assertEquals(7, after.get("buckets").size());
        assertEquals(200, get(app, "/pending/histogram?shard=1").status());
    }

    private static long bucket(JsonNode histogram, String label) {
        for (JsonNode b : histogram.get("buckets")) {
            if (b.get("label").asText().equals(label)) {
                return b.get("count").asLong();
            }
        }
        throw new AssertionError("no bucket " + label + " in " + histogram);
    }

    // ------------------------------------------------------------------------------------------- authentication

    @Test
    void unauthenticatedMutationsGet401AndChangeNothing() {
        String id = schedule(target, "10m");
        String path = "/messages/" + id;
        long dueAt = get(app, path).json().get("dueAt").asLong();
        List<Http.Reply> refused = new ArrayList<>();
        for (String auth : new String[] {null, "Bearer wrong-token-0000000000", "Basic YWxpY2U6d3Jvbmc=", "Digest x"}) {
            refused.add(call("DELETE", app, path, null, auth));
            refused.add(call("POST", app, path + "/fire-now", null, auth));
            refused.add(call("POST", app, path + "/reschedule", "{\"delay\":\"1s\"}", auth));
            refused.add(call("POST", app, "/messages/cancel", "{\"target\":\"" + target + "\",\"limit\":100}", auth));
            refused.add(call("POST", app, "/deadletter/replay", "{\"limit\":10}", auth));
            refused.add(call("POST", adminPort, "/tasks/pause-pump", null, auth));
            refused.add(call("POST", adminPort, "/tasks/resume-pump", null, auth));
        }
        for (Http.Reply reply : refused) {
            assertEquals(401, reply.status(), reply.toString());
            assertTrue(reply.json().get("message").asText().length() > 10, reply.toString());
        }
        JsonNode still = get(app, path).json();
        assertEquals("pending", still.get("state").asText());
        assertEquals(dueAt, still.get("dueAt").asLong(), "not rescheduled");
        assertEquals(0, get(app, "/deadletter/replay").json().size(), "no replay started");
        assertEquals(
                0,
                get(adminPort, "/metrics")
                        .json()
                        .get("gauges")
                        .get("delay.pump.paused")
                        .get("value")
                        .asInt(),
                "not paused");
        assertTrue(deliveredWithKey(id).isEmpty());
    }

    @Test
    void readsNeedNoCredentialsByDefault() {
        assertEquals(200, get(app, "/shards").status());
        assertEquals(200, get(adminPort, "/healthcheck").status());
        assertEquals(200, get(adminPort, "/prometheus").status());
    }

    // ------------------------------------------------------------------------------------------- bad requests

    @Test
    void badRequestsGet400NamingTheFieldAndNeverAStackTrace() {
        String id = schedule(target, "10m");
        String path = "/messages/" + id;
        assertField(call("POST", app, path + "/reschedule", "{}", BEARER), "dueAt");
        assertField(call("POST", app, path + "/reschedule", "{\"dueAt\":\"1\",\"delay\":\"1s\"}", BEARER), "delay");
        assertField(call("POST", app, path + "/reschedule", "{\"delay\":\"soon\"}", BEARER), "delay");
        assertField(call("POST", app, path + "/reschedule", "{\"delay\":\"-5s\"}", BEARER), "delay");
        assertField(call("POST", app, path + "/reschedule", "{\"delay\":\"400d\"}", BEARER), "delay");
        assertField(call("POST", app, path + "/reschedule", "{\"dueAt\":\"yesterday\"}", BEARER), "dueAt");
        assertField(call("POST", app, "/messages/cancel", "{\"limit\":5}", BEARER), "target");
        assertField(call("POST", app, "/messages/cancel", "{\"target\":\"x\"}", BEARER), "limit");
        assertField(call("POST", app, "/messages/cancel", "{\"target\":\"x\",\"limit\":101}", BEARER), "limit");
        assertField(call("POST", app, "/messages/cancel", "{\"target\":\"x\",\"limit\":0}", BEARER), "limit");
        assertField(
                call(
                        "POST",
                        app,
                        "/messages/cancel",
                        "{\"target\":\"x\",\"limit\":1,\"dueFrom\":\"2030-01-01T00:00:00Z\","
                                + "\"dueTo\":\"2020-01-01T00:00:00Z\"}",
                        BEARER),
                "dueTo");
        assertField(call("POST", app, "/deadletter/replay", "{}", BEARER), "limit");
        assertField(call("POST", app, "/deadletter/replay", "{\"limit\":50001}", BEARER), "limit");
        assertField(
                call("POST", app, "/deadletter/replay", "{\"limit\":5,\"errorCode\":\"NOPE\"}", BEARER), "errorCode");
        assertField(call("POST", app, "/deadletter/replay", "{\"limit\":5,\"from\":\"then\"}", BEARER), "from");
        assertField(get(app, "/pending/histogram?shard=x"), "shard");
        assertField(get(app, "/pending/histogram?shard=" + PARTITIONS), "shard");
        assertField(get(app, "/messages/" + "x".repeat(1025)), "id");

        Http.Reply broken = call("POST", app, path + "/reschedule", "{\"delay\":", BEARER);
        assertEquals(400, broken.status(), broken.toString());
        assertNoStackTrace(broken);
        Http.Reply tooBig = call(
                "POST", app, path + "/reschedule", "{\"delay\":\"1s\",\"pad\":\"" + "x".repeat(2_000) + "\"}", BEARER);
        assertEquals(413, tooBig.status(), tooBig.toString());
        Http.Reply badShard = call("POST", adminPort, "/tasks/pause-pump?shard=99", null, BEARER);
        assertTrue(badShard.status() >= 400, badShard.toString());
        assertNoStackTrace(badShard);
        assertEquals("pending", get(app, path).json().get("state").asText());
    }

    private static void assertField(Http.Reply reply, String field) {
        assertEquals(400, reply.status(), reply.toString());
        assertEquals(field, reply.json().get("field").asText(), reply.toString());
        assertTrue(reply.json().get("message").asText().startsWith(field + ": "), reply.toString());
        assertNoStackTrace(reply);
    }

    private static void assertNoStackTrace(Http.Reply reply) {
        assertFalse(reply.body().contains("\tat ") || reply.body().contains("Exception"), reply.toString());
    }

    // ------------------------------------------------------------------------------------------- changes

    @Test
    void aCancelTakesEffect() {
        String cancelled = schedule(target, "3s");
        String kept = schedule(target, "3s");
        Http.Reply reply = call("DELETE", app, "/messages/" + cancelled, null, BEARER);
        assertEquals(200, reply.status(), reply.toString());
        assertTrue(reply.json().get("cancelled").asBoolean());
        assertEquals(404, get(app, "/messages/" + cancelled).status());
        assertAudited("who=token:token", "action=cancel", "id=" + cancelled, "result=CANCELLED");
        assertEquals(
                404, call("DELETE", app, "/messages/" + cancelled, null, BEARER).status(), "gone: cancel again");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !deliveredWithKey(kept).isEmpty());
        // the kept one was due at the same time and has arrived: the cancelled one never will
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> deliveredWithKey(cancelled).isEmpty());
    }

    @Test
    void aRescheduleTakesEffectWithBasicAuth() {
        String id = schedule(target, "10m");
        Http.Reply reply = call("POST", app, "/messages/" + id + "/reschedule", "{\"delay\":\"1s\"}", BASIC);
        assertEquals(200, reply.status(), reply.toString());
        long newDue = reply.json().get("dueAt").asLong();
        assertAudited("who=basic:alice", "action=reschedule", "id=" + id, "dueAt=" + newDue);
        assertEquals(newDue, get(app, "/messages/" + id).json().get("dueAt").asLong());
        await().atMost(Duration.ofSeconds(20)).until(() -> !deliveredWithKey(id).isEmpty());
        KafkaClient.Received got = deliveredWithKey(id).get(0);
        assertEquals(Long.toString(newDue), got.header(DelayHeaders.DUE_AT), "delivered at the new due time");
        assertTrue(got.receivedAt() >= newDue - 50, "never early");
    }

    @Test
    void aRescheduleLaterMovesTheMessageBack() {
        String id = schedule(target, "2s");
        Http.Reply reply = call(
                "POST",
                app,
                "/messages/" + id + "/reschedule",
                "{\"dueAt\":\"" + (System.currentTimeMillis() + 3_600_000) + "\"}",
                BEARER);
        assertEquals(200, reply.status(), reply.toString());
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> deliveredWithKey(id).isEmpty());
        assertEquals("pending", get(app, "/messages/" + id).json().get("state").asText());
    }

    @Test
    void fireNowDeliversAtOnce() {
        long scheduledAt = System.currentTimeMillis();
        String id = schedule(target, "1h");
        Http.Reply reply = call("POST", app, "/messages/" + id + "/fire-now", null, BEARER);
        assertEquals(200, reply.status(), reply.toString());
        // due in an hour: delivered before that, it was fired (a delivery is never early)
        await().atMost(Duration.ofSeconds(60)).until(() -> !deliveredWithKey(id).isEmpty());
        assertTrue(deliveredWithKey(id).get(0).receivedAt() < scheduledAt + 3_600_000);
    }

    @Test
    void bulkCancelIsBoundedAndReportsHowManyItCancelled() {
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            mine.add(schedule(other, "40m"));
        }
        String elsewhere = schedule(target, "40m");
        String later = schedule(other, "3h");
        long from = System.currentTimeMillis() + 30 * 60_000;
        long to = System.currentTimeMillis() + 50 * 60_000;
        String body =
                "{\"target\":\"" + other + "\",\"dueFrom\":\"" + from + "\",\"dueTo\":\"" + to + "\",\"limit\":%d}";
        Http.Reply first = call("POST", app, "/messages/cancel", body.formatted(5), BEARER);
        assertEquals(200, first.status(), first.toString());
        assertEquals(5, first.json().get("cancelled").asInt());
        assertTrue(first.json().get("limitReached").asBoolean());
        Http.Reply rest = call("POST", app, "/messages/cancel", body.formatted(100), BEARER);
        assertEquals(7, rest.json().get("cancelled").asInt(), rest.toString());
        assertAudited("who=token:token", "action=bulk-cancel", "target=" + other, "limit=5", "cancelled=5");
        for (String id : mine) {
            assertEquals(404, get(app, "/messages/" + id).status(), id);
        }
        assertEquals(200, get(app, "/messages/" + elsewhere).status(), "another target stays");
        assertEquals(200, get(app, "/messages/" + later).status(), "outside the due range stays");
    }

    // ------------------------------------------------------------------------------------------- tasks, health

    @Test
    void pauseAndResumeThePumpForAllShardsOrOne() {
        ShardRouter router = new ShardRouter(names.intake(), PARTITIONS);
        assertEquals(
                200, call("POST", adminPort, "/tasks/pause-pump", null, BEARER).status());
        try {
            JsonNode health = get(adminPort, "/healthcheck").json();
            assertTrue(health.get("pipeline").get("message").asText().contains("paused"), health.toString());
            assertEquals(1, gauge("delay.pump.paused"));
            String held = schedule(target, "0");
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> deliveredWithKey(held).isEmpty());
            assertEquals(
                    "pending", get(app, "/messages/" + held).json().get("state").asText());
            assertEquals(
                    200,
                    call("POST", adminPort, "/tasks/resume-pump", null, BASIC).status());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !deliveredWithKey(held).isEmpty());
            assertEquals(0, gauge("delay.pump.paused"));

            // one shard: its messages wait, the others flow
            String heldId = null;
            String flowingId = null;
            while (heldId == null || flowingId == null) {
                String id = "ops-" + IDS.incrementAndGet();
                if (router.shardOf(id) == 1 && heldId == null) {
                    heldId = id;
                } else if (router.shardOf(id) != 1 && flowingId == null) {
                    flowingId = id;
                }
            }
            assertEquals(
                    200,
                    call("POST", adminPort, "/tasks/pause-pump?shard=1", null, BEARER)
                            .status());
            assertAudited("who=token:token", "action=pause-pump", "shards=1");
            assertEquals(1, gauge("delay.pump.paused-shards"));
            assertTrue(get(app, "/shards")
                    .json()
                    .get("shards")
                    .get(1)
                    .get("paused")
                    .asBoolean());
            assertTrue(get(adminPort, "/healthcheck")
                    .json()
                    .get("pipeline")
                    .get("message")
                    .asText()
                    .contains("paused shards [1]"));
            for (String id : List.of(heldId, flowingId)) {
                kafka.send(
                        names.intake(),
                        id,
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "0",
                        DelayHeaders.ID,
                        id);
            }
            String flowing = flowingId;
            String paused = heldId;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !deliveredWithKey(flowing).isEmpty());
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> deliveredWithKey(paused).isEmpty());
            assertEquals(
                    200,
                    call("POST", adminPort, "/tasks/resume-pump?shard=1", null, BEARER)
                            .status());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !deliveredWithKey(paused).isEmpty());
            assertEquals(0, gauge("delay.pump.paused-shards"));
        } finally {
            call("POST", adminPort, "/tasks/resume-pump", null, BEARER);
        }
    }

    @Test
    void healthChecksCoverRedisIncarnationClockSkewPumpLagThePipelineAndTheFarTier() {
        JsonNode health = get(adminPort, "/healthcheck").json();
        for (String check :
                List.of("kafka", "redis", "redis-incarnation", "clock-skew", "pump-lag", "pipeline", "far-tier")) {
            assertNotNull(health.get(check), check + " in " + health);
            assertTrue(
                    health.get(check).get("healthy").asBoolean(),
                    health.get(check).toString());
        }
        assertTrue(health.get("redis").get("message").asText().contains("writable"));
        assertTrue(health.get("clock-skew").get("message").asText().contains("skew"));
        assertTrue(
                health.get("far-tier").get("message").asText().endsWith("; thaw on time"),
                health.get("far-tier").toString());
    }

    @Test
    void metricsHoldTheOperationalGauges() {
        JsonNode gauges = get(adminPort, "/metrics").json().get("gauges");
        for (String name : List.of(
                "delay.pending",
                "delay.in-flight",
                "delay.pending.shard-0",
                "delay.in-flight.shard-0",
                "delay.oldest-overdue-ms",
                "delay.intake.lag",
                "delay.pump.paused",
                "delay.pump.paused-shards",
                "delay.pump.in-flight",
                "delay.far.thaw-behind-ms",
                "delay.send.batch-size-bytes-avg")) {
            assertNotNull(gauges.get(name), name + " missing from " + gauges.fieldNames());
        }
    }

    @Test
    void theSendGaugesReadTheProducerThatDelivered() {
        String id = schedule(target, "1s");
        await().atMost(Duration.ofSeconds(20)).until(() -> !deliveredWithKey(id).isEmpty());
        // the producer's averages are over its last 30-60 s: a delivery just made is in them
        await().atMost(Duration.ofSeconds(10)).until(() -> gaugeValue("delay.send.batch-size-bytes-avg") > 0);
        assertTrue(gaugeValue("delay.send.records-per-request-avg") >= 1);
    }

    private static double gaugeValue(String name) {
        return get(adminPort, "/metrics")
                .json()
                .get("gauges")
                .get(name)
                .get("value")
                .asDouble();
    }

    private static int gauge(String name) {
        return (int) gaugeValue(name);
    }
}
