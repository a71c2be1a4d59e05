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
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Who may call what on one bridge's operations API and admin port, on the real broker and Redis: mutations without
 * valid credentials get 401 and change nothing, reads need none by default, bad requests get 400 naming the field and
 * never a stack trace; and the admin tasks, health checks and gauges. The routes that read and change the store:
 * {@link OperationsApiIT}.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class OperationsAccessIT {

    private static ApiBridge api;

    @BeforeAll
    static void start(TestServers servers) {
        api = new ApiBridge(servers, servers.redisUri());
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    // ------------------------------------------------------------------------------------------- authentication

    @Test
    void unauthenticatedMutationsGet401AndChangeNothing() {
        String id = api.schedule(api.target, "10m");
        String path = "/messages/" + id;
        long dueAt = get(api.app, path).json().get("dueAt").asLong();
        List<Http.Reply> refused = new ArrayList<>();
        for (String auth : new String[] {null, "Bearer wrong-token-0000000000", "Basic YWxpY2U6d3Jvbmc=", "Digest x"}) {
            refused.add(call("DELETE", api.app, path, null, auth));
            refused.add(call("POST", api.app, path + "/fire-now", null, auth));
            refused.add(call("POST", api.app, path + "/reschedule", "{\"delay\":\"1s\"}", auth));
            refused.add(call(
                    "POST", api.app, "/messages/cancel", "{\"target\":\"" + api.target + "\",\"limit\":100}", auth));
            refused.add(call("POST", api.app, "/deadletter/replay", "{\"limit\":10}", auth));
            refused.add(call("POST", api.adminPort, "/tasks/pause-pump", null, auth));
            refused.add(call("POST", api.adminPort, "/tasks/resume-pump", null, auth));
        }
        for (Http.Reply reply : refused) {
            assertEquals(401, reply.status(), reply.toString());
            assertTrue(reply.json().get("message").asText().length() > 10, reply.toString());
        }
        JsonNode still = get(api.app, path).json();
        assertEquals("pending", still.get("state").asText());
        assertEquals(dueAt, still.get("dueAt").asLong(), "not rescheduled");
        assertEquals(0, get(api.app, "/deadletter/replay").json().size(), "no replay started");
        assertEquals(
                0,
                get(api.adminPort, "/metrics")
                        .json()
                        .get("gauges")
                        .get("delay.pump.paused")
                        .get("value")
                        .asInt(),
                "not paused");
        assertTrue(api.deliveredWithKey(id).isEmpty());
    }

    @Test
    void readsNeedNoCredentialsByDefault() {
        assertEquals(200, get(api.app, "/shards").status());
        assertEquals(200, get(api.adminPort, "/healthcheck").status());
        assertEquals(200, get(api.adminPort, "/prometheus").status());
    }

    // ------------------------------------------------------------------------------------------- bad requests

    @Test
    void badRequestsGet400NamingTheFieldAndNeverAStackTrace() {
        String id = api.schedule(api.target, "10m");
        String path = "/messages/" + id;
        assertField(call("POST", api.app, path + "/reschedule", "{}", BEARER), "dueAt");
        assertField(call("POST", api.app, path + "/reschedule", "{\"dueAt\":\"1\",\"delay\":\"1s\"}", BEARER), "delay");
        assertField(call("POST", api.app, path + "/reschedule", "{\"delay\":\"soon\"}", BEARER), "delay");
        assertField(call("POST", api.app, path + "/reschedule", "{\"delay\":\"-5s\"}", BEARER), "delay");
        assertField(call("POST", api.app, path + "/reschedule", "{\"delay\":\"400d\"}", BEARER), "delay");
        assertField(call("POST", api.app, path + "/reschedule", "{\"dueAt\":\"yesterday\"}", BEARER), "dueAt");
        assertField(call("POST", api.app, "/messages/cancel", "{\"limit\":5}", BEARER), "target");
        assertField(call("POST", api.app, "/messages/cancel", "{\"target\":\"x\"}", BEARER), "limit");
        assertField(call("POST", api.app, "/messages/cancel", "{\"target\":\"x\",\"limit\":101}", BEARER), "limit");
        assertField(call("POST", api.app, "/messages/cancel", "{\"target\":\"x\",\"limit\":0}", BEARER), "limit");
        assertField(
                call(
                        "POST",
                        api.app,
                        "/messages/cancel",
                        "{\"target\":\"x\",\"limit\":1,\"dueFrom\":\"2030-01-01T00:00:00Z\","
                                + "\"dueTo\":\"2020-01-01T00:00:00Z\"}",
                        BEARER),
                "dueTo");
        assertField(call("POST", api.app, "/deadletter/replay", "{}", BEARER), "limit");
        assertField(call("POST", api.app, "/deadletter/replay", "{\"limit\":50001}", BEARER), "limit");
        assertField(
                call("POST", api.app, "/deadletter/replay", "{\"limit\":5,\"errorCode\":\"NOPE\"}", BEARER),
                "errorCode");
        assertField(call("POST", api.app, "/deadletter/replay", "{\"limit\":5,\"from\":\"then\"}", BEARER), "from");
        assertField(get(api.app, "/pending/histogram?shard=x"), "shard");
        assertField(get(api.app, "/pending/histogram?shard=" + ApiBridge.PARTITIONS), "shard");
        assertField(get(api.app, "/messages/" + "x".repeat(1025)), "id");

        Http.Reply broken = call("POST", api.app, path + "/reschedule", "{\"delay\":", BEARER);
        assertEquals(400, broken.status(), broken.toString());
        assertNoStackTrace(broken);
        Http.Reply tooBig = call(
                "POST",
                api.app,
                path + "/reschedule",
                "{\"delay\":\"1s\",\"pad\":\"" + "x".repeat(2_000) + "\"}",
                BEARER);
        assertEquals(413, tooBig.status(), tooBig.toString());
        Http.Reply badShard = call("POST", api.adminPort, "/tasks/pause-pump?shard=99", null, BEARER);
        assertTrue(badShard.status() >= 400, badShard.toString());
        assertNoStackTrace(badShard);
        assertEquals("pending", get(api.app, path).json().get("state").asText());
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

    // ------------------------------------------------------------------------------------------- tasks, health

    @Test
    void pauseAndResumeThePumpForAllShardsOrOne() {
        ShardRouter router = new ShardRouter(api.names.intake(), ApiBridge.PARTITIONS);
        assertEquals(
                200,
                call("POST", api.adminPort, "/tasks/pause-pump", null, BEARER).status());
        try {
            JsonNode health = get(api.adminPort, "/healthcheck").json();
            assertTrue(health.get("pipeline").get("message").asText().contains("paused"), health.toString());
            assertEquals(1, api.gauge("delay.pump.paused"));
            String held = api.schedule(api.target, "0");
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> api.deliveredWithKey(held).isEmpty());
            assertEquals(
                    "pending",
                    get(api.app, "/messages/" + held).json().get("state").asText());
            assertEquals(
                    200,
                    call("POST", api.adminPort, "/tasks/resume-pump", null, BASIC)
                            .status());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !api.deliveredWithKey(held).isEmpty());
            assertEquals(0, api.gauge("delay.pump.paused"));

            // one shard: its messages wait, the others flow
            String heldId = null;
            String flowingId = null;
            while (heldId == null || flowingId == null) {
                String id = "ops-" + api.ids.incrementAndGet();
                if (router.shardOf(id) == 1 && heldId == null) {
                    heldId = id;
                } else if (router.shardOf(id) != 1 && flowingId == null) {
                    flowingId = id;
                }
            }
            assertEquals(
                    200,
                    call("POST", api.adminPort, "/tasks/pause-pump?shard=1", null, BEARER)
                            .status());
            api.assertAudited("who=token:token", "action=pause-pump", "shards=1");
            assertEquals(1, api.gauge("delay.pump.paused-shards"));
            assertTrue(get(api.app, "/shards")
                    .json()
                    .get("shards")
                    .get(1)
                    .get("paused")
                    .asBoolean());
            assertTrue(get(api.adminPort, "/healthcheck")
                    .json()
                    .get("pipeline")
                    .get("message")
                    .asText()
                    .contains("paused shards [1]"));
            for (String id : List.of(heldId, flowingId)) {
                api.kafka.send(
                        api.names.intake(),
                        id,
                        "v",
                        null,
                        DelayHeaders.TARGET,
                        api.target,
                        DelayHeaders.DELAY_MS,
                        "0",
                        DelayHeaders.ID,
                        id);
            }
            String flowing = flowingId;
            String paused = heldId;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !api.deliveredWithKey(flowing).isEmpty());
            await().during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> api.deliveredWithKey(paused).isEmpty());
            assertEquals(
                    200,
                    call("POST", api.adminPort, "/tasks/resume-pump?shard=1", null, BEARER)
                            .status());
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !api.deliveredWithKey(paused).isEmpty());
            assertEquals(0, api.gauge("delay.pump.paused-shards"));
        } finally {
            call("POST", api.adminPort, "/tasks/resume-pump", null, BEARER);
        }
    }

    @Test
    void healthChecksCoverRedisIncarnationClockSkewPumpLagThePipelineAndTheFarTier() {
        JsonNode health = get(api.adminPort, "/healthcheck").json();
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
        JsonNode gauges = get(api.adminPort, "/metrics").json().get("gauges");
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
        String id = api.schedule(api.target, "1s");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !api.deliveredWithKey(id).isEmpty());
        // the producer's averages are over its last 30-60 s: a delivery just made is in them
        await().atMost(Duration.ofSeconds(10)).until(() -> api.gaugeValue("delay.send.batch-size-bytes-avg") > 0);
        assertTrue(api.gaugeValue("delay.send.records-per-request-avg") >= 1);
    }
}
