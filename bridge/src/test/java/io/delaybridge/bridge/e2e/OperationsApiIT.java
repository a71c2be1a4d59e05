package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BASIC;
import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The message API and the shard views of one bridge on the real broker and Redis: what a message holds and where it
 * is, shards and the pending histogram, and cancels, reschedules and fire-now that take effect and are audited. Every
 * route here reads or changes the store, so {@link ClusterOperationsApiIT} runs them all again on a Redis Cluster.
 * Who may call what, bad requests and the admin tasks: {@link OperationsAccessIT}.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class OperationsApiIT {

    private static ApiBridge api;
    /** Another Redis for a subclass (a cluster): its URI, and what to close after the bridge. */
    static String redisUriOverride;

    static AutoCloseable redisOverride;

    @BeforeAll
    static void start(TestServers servers, TestInfo info) throws ClassNotFoundException {
        // a subclass sets redisUriOverride when it is initialised, which running this inherited method does not do
        Class<?> testClass = info.getTestClass().orElseThrow();
        Class.forName(testClass.getName(), true, testClass.getClassLoader());
        api = new ApiBridge(servers, redisUriOverride != null ? redisUriOverride : servers.redisUri());
    }

    @AfterAll
    static void stop() throws Exception {
        api.close();
        if (redisOverride != null) {
            redisOverride.close();
            redisOverride = null;
            redisUriOverride = null;
        }
    }

    // ------------------------------------------------------------------------------------------- reads

    @Test
    void getShowsWhereAPendingMessageIsAndWhatItHolds() {
        String id = api.schedule(api.target, "10m");
        Http.Reply reply = get(api.app, "/messages/" + id);
        assertEquals(200, reply.status(), reply.toString());
        JsonNode m = reply.json();
        assertEquals(id, m.get("id").asText());
        assertEquals("pending", m.get("state").asText());
        assertEquals(api.target, m.get("target").asText());
        assertEquals(0, m.get("attempts").asInt());
        assertEquals(id, m.get("key").asText());
        assertEquals(("value of " + id).length(), m.get("valueBytes").asInt());
        assertTrue(m.get("sizeBytes").asInt() > 0);
        long dueIn = m.get("dueAt").asLong() - System.currentTimeMillis();
        assertTrue(dueIn > 9 * 60_000 && dueIn <= 10 * 60_000 + 1_000, "due in 10 minutes: " + dueIn);
        assertEquals("trace-id", m.get("headers").get(0).get("name").asText());
        assertEquals("t-" + id, m.get("headers").get(0).get("value").asText());
        assertEquals(
                new ShardRouter(api.names.intake(), ApiBridge.PARTITIONS).shardOf(id),
                m.get("shard").asInt());
    }

    @Test
    void anUnknownIdIs404WithTheId() {
        Http.Reply reply = get(api.app, "/messages/no-such-id");
        assertEquals(404, reply.status());
        assertEquals("no-such-id", reply.json().get("id").asText());
        assertEquals(
                404,
                call("DELETE", api.app, "/messages/no-such-id", null, BEARER).status());
        assertEquals(
                404,
                call("POST", api.app, "/messages/no-such-id/fire-now", null, BEARER)
                        .status());
        Http.Reply move = call("POST", api.app, "/messages/no-such-id/reschedule", "{\"delay\":\"1m\"}", BEARER);
        assertEquals(404, move.status());
        assertEquals("no-such-id", move.json().get("id").asText());
    }

    @Test
    void shardsShowOwnersCountsAndDueTimes() {
        String id = api.schedule(api.target, "20m");
        JsonNode reply = get(api.app, "/shards").json();
        JsonNode shards = reply.get("shards");
        assertEquals(ApiBridge.PARTITIONS, shards.size());
        long pending = 0;
        for (JsonNode shard : shards) {
            assertFalse(shard.get("owner").isNull(), "every shard has an owner: " + shard);
            assertTrue(shard.get("pumpedHere").asBoolean(), "one bridge pumps every shard: " + shard);
            assertTrue(shard.get("epoch").asLong() >= 1);
            pending += shard.get("pending").asLong();
        }
        assertEquals(pending, reply.get("pending").asLong());
        int shard = new ShardRouter(api.names.intake(), ApiBridge.PARTITIONS).shardOf(id);
        assertTrue(shards.get(shard).get("pending").asLong() >= 1);
        assertFalse(shards.get(shard).get("nextDueAt").isNull());
    }

    @Test
    void theHistogramCountsPendingMessagesByDueTime() {
        Http.Reply before = get(api.app, "/pending/histogram");
        long nextHourBefore = bucket(before.json(), "next hour");
        long nextDayBefore = bucket(before.json(), "next day");
        api.schedule(api.target, "30m");
        api.schedule(api.target, "30m");
        api.schedule(api.target, "5h");
        JsonNode after = get(api.app, "/pending/histogram").json();
        assertEquals(nextHourBefore + 2, bucket(after, "next hour"), after.toString());
        assertEquals(nextDayBefore + 1, bucket(after, "next day"), after.toString());
        assertEquals(7, after.get("buckets").size());
        assertEquals(200, get(api.app, "/pending/histogram?shard=1").status());
    }

    private static long bucket(JsonNode histogram, String label) {
        for (JsonNode b : histogram.get("buckets")) {
            if (b.get("label").asText().equals(label)) {
                return b.get("count").asLong();
            }
        }
        throw new AssertionError("no bucket " + label + " in " + histogram);
    }

    // ------------------------------------------------------------------------------------------- changes

    @Test
    void aCancelTakesEffect() {
        String cancelled = api.schedule(api.target, "3s");
        String kept = api.schedule(api.target, "3s");
        Http.Reply reply = call("DELETE", api.app, "/messages/" + cancelled, null, BEARER);
        assertEquals(200, reply.status(), reply.toString());
        assertTrue(reply.json().get("cancelled").asBoolean());
        assertEquals(404, get(api.app, "/messages/" + cancelled).status());
        api.assertAudited("who=token:token", "action=cancel", "id=" + cancelled, "result=CANCELLED");
        assertEquals(
                404,
                call("DELETE", api.app, "/messages/" + cancelled, null, BEARER).status(),
                "gone: cancel again");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !api.deliveredWithKey(kept).isEmpty());
        // the kept one was due at the same time and has arrived: the cancelled one never will
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3))
                .until(() -> api.deliveredWithKey(cancelled).isEmpty());
    }

    @Test
    void aRescheduleTakesEffectWithBasicAuth() {
        String id = api.schedule(api.target, "10m");
        Http.Reply reply = call("POST", api.app, "/messages/" + id + "/reschedule", "{\"delay\":\"1s\"}", BASIC);
        assertEquals(200, reply.status(), reply.toString());
        long newDue = reply.json().get("dueAt").asLong();
        api.assertAudited("who=basic:alice", "action=reschedule", "id=" + id, "dueAt=" + newDue);
        assertEquals(newDue, get(api.app, "/messages/" + id).json().get("dueAt").asLong());
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !api.deliveredWithKey(id).isEmpty());
        KafkaClient.Received got = api.deliveredWithKey(id).get(0);
        assertEquals(Long.toString(newDue), got.header(DelayHeaders.DUE_AT), "delivered at the new due time");
        assertTrue(got.receivedAt() >= newDue - 50, "never early");
    }

    @Test
    void aRescheduleLaterMovesTheMessageBack() {
        String id = api.schedule(api.target, "2s");
        Http.Reply reply = call(
                "POST",
                api.app,
                "/messages/" + id + "/reschedule",
                "{\"dueAt\":\"" + (System.currentTimeMillis() + 3_600_000) + "\"}",
                BEARER);
        assertEquals(200, reply.status(), reply.toString());
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> api.deliveredWithKey(id).isEmpty());
        assertEquals(
                "pending", get(api.app, "/messages/" + id).json().get("state").asText());
    }

    @Test
    void fireNowDeliversAtOnce() {
        long scheduledAt = System.currentTimeMillis();
        String id = api.schedule(api.target, "1h");
        Http.Reply reply = call("POST", api.app, "/messages/" + id + "/fire-now", null, BEARER);
        assertEquals(200, reply.status(), reply.toString());
        // due in an hour: delivered before that, it was fired (a delivery is never early)
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !api.deliveredWithKey(id).isEmpty());
        assertTrue(api.deliveredWithKey(id).get(0).receivedAt() < scheduledAt + 3_600_000);
    }

    @Test
    void bulkCancelIsBoundedAndReportsHowManyItCancelled() {
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            mine.add(api.schedule(api.other, "40m"));
        }
        String elsewhere = api.schedule(api.target, "40m");
        String later = api.schedule(api.other, "3h");
        long from = System.currentTimeMillis() + 30 * 60_000;
        long to = System.currentTimeMillis() + 50 * 60_000;
        String body =
                "{\"target\":\"" + api.other + "\",\"dueFrom\":\"" + from + "\",\"dueTo\":\"" + to + "\",\"limit\":%d}";
        Http.Reply first = call("POST", api.app, "/messages/cancel", body.formatted(5), BEARER);
        assertEquals(200, first.status(), first.toString());
        assertEquals(5, first.json().get("cancelled").asInt());
        assertTrue(first.json().get("limitReached").asBoolean());
        Http.Reply rest = call("POST", api.app, "/messages/cancel", body.formatted(100), BEARER);
        assertEquals(7, rest.json().get("cancelled").asInt(), rest.toString());
        api.assertAudited("who=token:token", "action=bulk-cancel", "target=" + api.other, "limit=5", "cancelled=5");
        for (String id : mine) {
            assertEquals(404, get(api.app, "/messages/" + id).status(), id);
        }
        assertEquals(200, get(api.app, "/messages/" + elsewhere).status(), "another target stays");
        assertEquals(200, get(api.app, "/messages/" + later).status(), "outside the due range stays");
    }
}
