package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.BEARER;
import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The series API on a running bridge: a series by id with its next occurrences, the series of a target, and
 * {@code DELETE} ending one (docs/operations.md, the `/series` section).
 */
@ExtendWith(RealServersExtension.class)
class SeriesApiIT {

    private static final long HOUR = 3_600_000L;

    @Test
    void aSeriesIsListedWithItsNextOccurrencesAndADeleteEndsIt(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        String other = names.target("other");
        String id = "hourly-" + System.nanoTime();
        String oneShot = "once-" + System.nanoTime();
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("api.token", Http.TOKEN))
                        .start()) {
            kafka.createTopics(2, target, other);
            int app = bridge.support().getLocalPort();
            long ts = kafka.send(
                            names.intake(),
                            id,
                            "h",
                            null,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.ID,
                            id,
                            SeriesHeaders.EVERY,
                            "1h",
                            SeriesHeaders.COUNT,
                            "3")
                    .timestamp();
            kafka.send(
                    names.intake(),
                    oneShot,
                    "o",
                    null,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.ID,
                    oneShot,
                    DelayHeaders.DELAY_MS,
                    "1h");
            kafka.send(
                    names.intake(),
                    "x",
                    "x",
                    null,
                    DelayHeaders.TARGET,
                    other,
                    DelayHeaders.ID,
                    "other-" + id,
                    SeriesHeaders.EVERY,
                    "1h");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(app, "/series/" + id).status() == 200
                            && get(app, "/messages/" + oneShot).status() == 200
                            && get(app, "/series/other-" + id).status() == 200);

            JsonNode series = get(app, "/series/" + id + "?next=5").json();
            assertEquals(target, series.get("target").asText());
            assertEquals("pending", series.get("state").asText());
            assertEquals(1, series.at("/pending/number").asLong());
            assertEquals(ts + HOUR, series.at("/pending/dueAt").asLong());
            assertEquals(
                    "1h",
                    series.at("/schedule/delay-every")
                            .asText(series.get("schedule").toString()));
            List<Long> due = new ArrayList<>();
            for (JsonNode o : series.get("next")) {
                due.add(o.get("dueAt").asLong());
            }
            assertEquals(List.of(ts + HOUR, ts + 2 * HOUR, ts + 3 * HOUR), due, "delay-count 3 bounds the next five");

            assertEquals(404, get(app, "/series/" + oneShot).status(), "a one-shot message is no series");
            JsonNode listed = get(app, "/series?target=" + target + "&next=1").json();
            List<String> ids = new ArrayList<>();
            for (JsonNode s : listed.get("series")) {
                ids.add(s.get("id").asText());
            }
            assertEquals(List.of(id), ids, "the target's series only: " + listed);
            assertEquals(1, listed.at("/series/0/next").size());
            assertEquals(400, get(app, "/series/" + id + "?next=101").status());
            assertEquals(400, get(app, "/series").status(), "a listing needs a target");

            assertEquals(401, call("DELETE", app, "/series/" + id, null, null).status());
            assertEquals(
                    404, call("DELETE", app, "/series/" + oneShot, null, BEARER).status());
            Http.Reply ended = call("DELETE", app, "/series/" + id, null, BEARER);
            assertEquals(200, ended.status(), ended.toString());
            assertTrue(ended.json().get("ended").asBoolean());
            assertEquals(404, get(app, "/series/" + id).status());
            assertEquals(404, call("DELETE", app, "/series/" + id, null, BEARER).status(), "ended already");
            assertEquals(200, get(app, "/messages/" + oneShot).status(), "the one-shot message stays");
        }
    }
}
