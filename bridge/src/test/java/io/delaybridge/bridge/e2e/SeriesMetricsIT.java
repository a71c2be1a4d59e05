package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The meters of series (delivered, missed, skipped; per series and per target) and the status page's schedules,
 * through a real broker and Redis, across an outage that spans occurrences: a bridge delivers the first occurrences
 * of every-second series of 15, stops, and a second bridge starts only once all 15 are past. Under
 * {@code delay-missed: one} the second bridge delivers #15 alone and counts the rest missed and skipped; under
 * {@code all} it delivers each of them, counting all but #15 missed and none skipped. The meters are read with a wait:
 * they are marked when a turn is settled, after its record reached the target.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class SeriesMetricsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int COUNT = 15;

    @Test
    void anOutageIsCountedAsMissedAndSkippedPerSeriesAndPerTarget(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String out = names.target("out");
        String slow = names.target("slow");
        String one = "one-" + System.nanoTime();
        String all = "all-" + System.nanoTime();
        String hourly = "hourly-" + System.nanoTime();
        String fiveSeconds = "five-" + System.nanoTime();
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, out, slow);
            KafkaClient.Collector got = kafka.collect(out);
            KafkaClient.Collector gotSlow = kafka.collect(slow);
            TestBridge first = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
            long ts = series(kafka, names, out, one, SeriesHeaders.COUNT, Integer.toString(COUNT));
            long tsAll = series(
                    kafka, names, out, all, SeriesHeaders.COUNT, Integer.toString(COUNT), SeriesHeaders.MISSED, "all");
            series(kafka, names, slow, hourly, SeriesHeaders.EVERY, "1h");
            series(kafka, names, slow, fiveSeconds, SeriesHeaders.EVERY, "5s");
            await().atMost(WAIT)
                    .until(() ->
                            numbers(got, one).size() >= 2 && numbers(got, all).size() >= 2);
            first.stop();
            // the outage lasts until every occurrence is past: a wait on the wall clock the series runs on
            long lastDue = Math.max(ts, tsAll) + COUNT * 1000L;
            await().atMost(WAIT).until(() -> System.currentTimeMillis() > lastDue + 1_000);

            long restartedAt = System.currentTimeMillis();
            TestBridge second = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
            try {
                await().atMost(WAIT).until(() -> last(numbers(got, one)) == COUNT && last(numbers(got, all)) == COUNT);
                // what the first bridge delivered went out before the restart, the rest after it
                long lastOne = last(delivered(got, one, t -> t < restartedAt));
                long lastAll = last(delivered(got, all, t -> t < restartedAt));
                assertTrue(
                        lastOne <= COUNT - 3 && lastAll <= COUNT - 3,
                        "the outage must span occurrences; delivered before it: " + lastOne + ", " + lastAll);
                assertEquals(
                        List.of((long) COUNT), delivered(got, one, t -> t >= restartedAt), "one: the latest alone");
                long lateAll = COUNT - lastAll;
                assertEquals(lateAll, delivered(got, all, t -> t >= restartedAt).size(), "all: each one past, once");

                long passedOne = COUNT - lastOne - 1;
                second.awaitMeter("delay.series.delivered." + one, 1);
                second.awaitMeter("delay.series.missed." + one, passedOne);
                second.awaitMeter("delay.series.skipped." + one, passedOne);
                second.awaitMeter("delay.series.delivered." + all, lateAll);
                second.awaitMeter("delay.series.missed." + all, lateAll - 1);
                second.awaitMeter("delay.series.skipped." + all, 0);
                second.awaitMeter("delay.target.series-delivered." + out, 1 + lateAll);
                second.awaitMeter("delay.target.series-missed." + out, passedOne + lateAll - 1);
                second.awaitMeter("delay.target.series-skipped." + out, passedOne);

                String prometheus = get(second.adminPort(), "/prometheus").body();
                assertEquals(passedOne, sample(prometheus, "delay_series_skipped_total{series=\"" + one + "\"}"));
                assertEquals(lateAll - 1, sample(prometheus, "delay_series_missed_total{series=\"" + all + "\"}"));
                assertEquals(
                        1 + lateAll, sample(prometheus, "delay_target_series_delivered_total{target=\"" + out + "\"}"));

                await().atMost(WAIT)
                        .until(() -> !gotSlow.matching(r -> fiveSeconds.equals(r.key()))
                                .isEmpty());
                await().atMost(WAIT).untilAsserted(() -> schedulesShow(second, hourly, fiveSeconds));
            } finally {
                second.stop();
            }
        }
    }

    /**
     * The status page lists the two series still running (the two of 15 are over), all pending messages read, the
     * hourly one's next occurrence #1 and no delivery yet, the five-second one's last delivery.
     */
    private static void schedulesShow(TestBridge bridge, String hourly, String fiveSeconds) {
        JsonNode schedules =
                get(bridge.support().getLocalPort(), "/status/summary").json().get("schedules");
        assertEquals(2, schedules.get("count").asInt(), schedules.toString());
        assertTrue(schedules.get("complete").asBoolean(), schedules.toString());
        assertTrue(schedules.get("skipped").asLong() > 0, schedules.toString());
        JsonNode h = row(schedules, hourly);
        assertEquals(1, h.at("/pending/number").asLong(), h.toString());
        assertTrue(h.path("lastDeliveredDueAtIso").isMissingNode(), h.toString());
        assertEquals("1h", h.at("/schedule/delay-every").asText(), h.toString());
        JsonNode f = row(schedules, fiveSeconds);
        assertTrue(f.at("/pending/number").asLong() > 1, f.toString());
        assertTrue(f.path("lastDeliveredDueAtIso").isTextual(), f.toString());
    }

    private static JsonNode row(JsonNode schedules, String id) {
        for (JsonNode row : schedules.get("next")) {
            if (id.equals(row.get("id").asText())) {
                return row;
            }
        }
        throw new AssertionError(id + " is not among the next due: " + schedules);
    }

    /** Sends an every-second series (unless the headers give another schedule); returns its record timestamp. */
    private static long series(KafkaClient kafka, TestNames names, String target, String id, String... extra) {
        List<String> pairs = new ArrayList<>(List.of(DelayHeaders.TARGET, target, DelayHeaders.ID, id));
        if (!List.of(extra).contains(SeriesHeaders.EVERY)) {
            pairs.addAll(List.of(SeriesHeaders.EVERY, "1s"));
        }
        pairs.addAll(List.of(extra));
        return kafka.send(names.intake(), id, "v", null, pairs.toArray(String[]::new))
                .timestamp();
    }

    private static List<Long> numbers(KafkaClient.Collector got, String id) {
        return delivered(got, id, t -> true);
    }

    /** The occurrence numbers of series {@code id} whose records' broker timestamps pass {@code when}. */
    private static List<Long> delivered(KafkaClient.Collector got, String id, LongPredicate when) {
        return got
                .matching(r -> id.equals(r.header(DelayHeaders.ID))
                        && when.test(r.record().timestamp()))
                .stream()
                .map(r -> Long.parseLong(r.header(DelayHeaders.OCCURRENCE)))
                .toList();
    }

    private static long last(List<Long> numbers) {
        return numbers.isEmpty() ? 0 : numbers.get(numbers.size() - 1);
    }

    /** The value of one sample line of the Prometheus text, e.g. {@code name{label="v"} 3.0}. */
    private static long sample(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return (long)
                        Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("no sample " + series + " in the Prometheus text");
    }
}
