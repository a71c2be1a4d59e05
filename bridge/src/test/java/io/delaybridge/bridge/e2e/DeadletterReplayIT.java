package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** 10,000 deadletter records replayed into the intake through the API all reach their target, stripped of errors. */
@ExtendWith(RealServersExtension.class)
class DeadletterReplayIT {

    private static final int RECORDS = 10_000;

    @Test
    void tenThousandDeadletterRecordsReplayedAllArrive(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("replayed");
        String untouched = names.target("untouched");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("api.token", Http.TOKEN))
                        .start()) {
            kafka.createTopics(4, target, untouched);
            // deadletter records as the bridge writes them: original headers plus the error headers
            for (int i = 0; i < RECORDS; i++) {
                kafka.sendAsync(
                        names.deadletter(),
                        "k" + i,
                        "v" + i,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "0",
                        "trace-id",
                        "t" + i,
                        DelayHeaders.ERROR,
                        ErrorCode.DELIVERY_FAILED.name(),
                        DelayHeaders.ERROR_MESSAGE,
                        "target refused it",
                        DelayHeaders.ORIGIN,
                        "x/0/" + i,
                        DelayHeaders.ATTEMPT,
                        "10");
            }
            // other reasons and other targets are filtered out
            for (int i = 0; i < 50; i++) {
                kafka.sendAsync(
                        names.deadletter(),
                        "other-code" + i,
                        "v",
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "0",
                        DelayHeaders.ERROR,
                        ErrorCode.TARGET_FORBIDDEN.name());
                kafka.sendAsync(
                        names.deadletter(),
                        "other-target" + i,
                        "v",
                        DelayHeaders.TARGET,
                        untouched,
                        DelayHeaders.DELAY_MS,
                        "0",
                        DelayHeaders.ERROR,
                        ErrorCode.DELIVERY_FAILED.name());
            }
            kafka.flush();
            KafkaClient.Collector arrived = kafka.collect(target, untouched);

            int app = bridge.support().getLocalPort();
            Http.Reply started = call(
                    "POST",
                    app,
                    "/deadletter/replay",
                    "{\"errorCode\":\"DELIVERY_FAILED\"," + "\"target\":\"" + target + "\",\"limit\":20000}",
                    BEARER);
            assertEquals(202, started.status(), started.toString());
            String status = started.json().get("status").asText();
            Http.Reply second = call("POST", app, "/deadletter/replay", "{\"limit\":5}", BEARER);
            assertTrue(second.status() == 409 || second.status() == 202, second.toString());

            JsonNode[] done = new JsonNode[1];
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        done[0] = get(app, status).json();
                        return !done[0].get("state").asText().equals("running");
                    });
            assertEquals("done", done[0].get("state").asText(), done[0].toString());
            assertEquals(RECORDS, done[0].get("matched").asInt(), done[0].toString());
            assertEquals(RECORDS, done[0].get("acknowledged").asInt(), done[0].toString());
            assertEquals(0, done[0].get("failed").asInt());
            assertTrue(done[0].get("scanned").asInt() >= RECORDS + 100, done[0].toString());

            await().atMost(Duration.ofMinutes(3)).until(() -> arrived.size() >= RECORDS);
            List<KafkaClient.Received> all = arrived.received();
            Set<String> keys = new HashSet<>();
            for (KafkaClient.Received r : all) {
                assertEquals(target, r.topic(), "only the filtered records: " + r.key());
                keys.add(r.key());
            }
            assertEquals(RECORDS, keys.size(), "every replayed record arrived once");
            KafkaClient.Received one = all.get(0);
            assertNull(one.header(DelayHeaders.ERROR), "error headers stripped");
            assertNull(one.header(DelayHeaders.ERROR_MESSAGE));
            assertEquals("1", one.header(DelayHeaders.ATTEMPT), "a fresh delivery, not attempt 11");
            assertEquals("t" + one.key().substring(1), one.header("trace-id"), "user headers kept");
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> arrived.size() == RECORDS);
        }
    }
}
