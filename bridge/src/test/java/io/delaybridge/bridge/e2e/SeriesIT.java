package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Recurring records (docs/recurring-schedules.md) through a real broker and Redis: each occurrence delivered with its
 * number and due time, the next stored as the current one is settled; count, cancel and replacement end a series; a
 * bad one is deadlettered; a restart neither stops nor repeats one. Waits are bounded by conditions, never sleeps:
 * "no further occurrence" is checked against a one-shot marker due after the instant the occurrence would have had.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class SeriesIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static TestNames names;
    private static KafkaClient kafka;
    private static TestBridge bridge;
    private static KafkaClient.Collector delivered;
    private static KafkaClient.Collector deadletters;
    private static String target;

    @BeforeAll
    static void start(TestServers servers) {
        names = TestNames.unique(servers);
        target = names.target("out");
        kafka = new KafkaClient(servers.kafkaBootstrap());
        kafka.createTopics(2, target);
        bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start();
        delivered = kafka.collect(target);
        deadletters = kafka.collect(names.deadletter());
    }

    @AfterAll
    static void stop() {
        bridge.close();
        kafka.close();
    }

    @Test
    void anEverySecondSeriesDeliversItsOccurrencesInOrderAndItsCountEndsIt() {
        String id = "tick-" + System.nanoTime();
        long ts = series(id, "tick", SeriesHeaders.EVERY, "1s", SeriesHeaders.COUNT, "3");

        List<KafkaClient.Received> got = awaitOccurrences(id, 3);
        for (int n = 1; n <= 3; n++) {
            KafkaClient.Received r = got.get(n - 1);
            long due = ts + n * 1000L;
            assertEquals(Integer.toString(n), r.header(DelayHeaders.OCCURRENCE), "occurrence " + n);
            assertEquals(Long.toString(due), r.header(DelayHeaders.DUE_AT), "due time of occurrence " + n);
            assertEquals(id, r.header(DelayHeaders.ID), "the series id");
            assertEquals("tick", r.value());
            assertTrue(
                    r.record().timestamp() >= due,
                    "occurrence " + n + " early by " + (due - r.record().timestamp()));
            assertNull(r.header(DelayHeaders.SERIES), "the stored state stays in the bridge");
        }
        awaitMarkerAfter(ts + 4_000); // where a fourth would fall
        assertEquals(3, occurrences(id).size(), "delay-count 3 ends the series");
    }

    @Test
    void aCronSeriesFollowsTheWallClockOfItsZone() {
        String id = "cron-" + System.nanoTime();
        long ts =
                series(id, "c", SeriesHeaders.CRON, "* * * * * *", SeriesHeaders.ZONE, "UTC", SeriesHeaders.COUNT, "2");
        List<KafkaClient.Received> got = awaitOccurrences(id, 2);
        long first = (ts / 1000 + (ts % 1000 == 0 ? 0 : 1)) * 1000; // the first whole second at or after the record
        for (int n = 1; n <= 2; n++) {
            assertEquals(Integer.toString(n), got.get(n - 1).header(DelayHeaders.OCCURRENCE));
            assertEquals(Long.toString(first + (n - 1) * 1000L), got.get(n - 1).header(DelayHeaders.DUE_AT));
        }
    }

    @Test
    void aCancelByIdEndsASeries() {
        String id = "cancelled-" + System.nanoTime();
        series(id, "c", SeriesHeaders.EVERY, "1s");
        awaitOccurrences(id, 2);
        long cancelledAt = kafka.send(names.intake(), null, null, null, DelayHeaders.CANCEL, id)
                .timestamp();
        // an occurrence in flight when the cancel is read may still go out; after that, none
        awaitMarkerAfter(cancelledAt + 2_000);
        int afterCancel = occurrences(id).size();
        awaitMarkerAfter(System.currentTimeMillis() + 2_500);
        assertEquals(afterCancel, occurrences(id).size(), "no occurrence after the cancel settled");
    }

    @Test
    void aRecordWithTheSeriesIdReplacesTheSeries() {
        String id = "replaced-" + System.nanoTime();
        series(id, "old", SeriesHeaders.EVERY, "1s");
        awaitOccurrences(id, 1);
        long ts = series(id, "new", SeriesHeaders.EVERY, "1s", SeriesHeaders.COUNT, "2");
        await().atMost(WAIT)
                .until(() -> occurrences(id).stream()
                                .filter(r -> "new".equals(r.value()))
                                .count()
                        >= 2);
        awaitMarkerAfter(ts + 3_000);
        List<KafkaClient.Received> fresh =
                occurrences(id).stream().filter(r -> "new".equals(r.value())).toList();
        assertEquals(
                List.of("1", "2"),
                fresh.stream().map(r -> r.header(DelayHeaders.OCCURRENCE)).toList());
        long oldAfterReplacement = occurrences(id).stream()
                .filter(r -> "old".equals(r.value()) && r.record().timestamp() > ts + 1_500)
                .count();
        assertEquals(0, oldAfterReplacement, "the replaced series stopped");
    }

    @Test
    void aBadCronIsDeadletteredWithItsCodeAndTheIntakeGoesOn() {
        String id = "bad-" + System.nanoTime();
        kafka.send(
                names.intake(),
                id,
                "never",
                null,
                DelayHeaders.TARGET,
                target,
                DelayHeaders.ID,
                id,
                SeriesHeaders.CRON,
                "61 * * * *",
                SeriesHeaders.ZONE,
                "Europe/Berlin");
        awaitMarkerAfter(System.currentTimeMillis() + 500);
        await().atMost(WAIT)
                .until(() -> !deadletters.matching(r -> id.equals(r.key())).isEmpty());
        List<KafkaClient.Received> dead = deadletters.matching(r -> id.equals(r.key()));
        assertEquals(1, dead.size(), "one deadletter record");
        assertEquals(ErrorCode.INVALID_CRON.name(), dead.get(0).header(DelayHeaders.ERROR));
        assertEquals(List.of(), occurrences(id));
    }

    @Test
    void aRestartMidSeriesKeepsItGoingWithoutARepeat(TestServers servers) {
        TestNames own = TestNames.unique(servers);
        String out = own.target("out");
        String id = "restart-" + System.nanoTime();
        try (KafkaClient client = new KafkaClient(servers.kafkaBootstrap())) {
            client.createTopics(1, out);
            KafkaClient.Collector got = client.collect(out);
            TestBridge first = new TestBridge(own, servers.kafkaBootstrap(), servers.redisUri()).start();
            long ts = client.send(
                            own.intake(),
                            id,
                            "r",
                            null,
                            DelayHeaders.TARGET,
                            out,
                            DelayHeaders.ID,
                            id,
                            SeriesHeaders.EVERY,
                            "1s")
                    .timestamp();
            await().atMost(WAIT).until(() -> got.size() >= 3);
            first.stop();
            int beforeRestart = got.size();
            TestBridge second = new TestBridge(own, servers.kafkaBootstrap(), servers.redisUri()).start();
            try {
                await().atMost(WAIT).until(() -> got.size() >= beforeRestart + 3);
            } finally {
                second.stop();
            }
            List<Long> numbers = new ArrayList<>();
            for (KafkaClient.Received r : got.received()) {
                long n = Long.parseLong(r.header(DelayHeaders.OCCURRENCE));
                assertEquals(Long.toString(ts + n * 1000), r.header(DelayHeaders.DUE_AT), "due time of " + n);
                assertTrue(r.record().timestamp() >= ts + n * 1000, "occurrence " + n + " early");
                numbers.add(n);
            }
            for (int i = 1; i < numbers.size(); i++) {
                // missed while down (delay-missed: one): numbers may jump, never repeat nor go back
                assertTrue(numbers.get(i) > numbers.get(i - 1), "occurrences in order without a repeat: " + numbers);
            }
            assertEquals(1L, numbers.get(0));
        }
    }

    /** Sends a series to the shared bridge; returns the record timestamp. */
    private static long series(String id, String value, String... seriesHeaders) {
        List<String> pairs = new ArrayList<>(List.of(DelayHeaders.TARGET, target, DelayHeaders.ID, id));
        pairs.addAll(List.of(seriesHeaders));
        return kafka.send(names.intake(), id, value, null, pairs.toArray(String[]::new))
                .timestamp();
    }

    private static List<KafkaClient.Received> occurrences(String id) {
        return delivered.matching(r -> id.equals(r.header(DelayHeaders.ID)));
    }

    private static List<KafkaClient.Received> awaitOccurrences(String id, int count) {
        await().atMost(WAIT).until(() -> occurrences(id).size() >= count);
        return occurrences(id);
    }

    /** Sends a one-shot marker due at {@code dueAt} and waits until it is delivered. */
    private static void awaitMarkerAfter(long dueAt) {
        String key = "marker-" + System.nanoTime();
        kafka.send(
                names.intake(), key, "m", null, DelayHeaders.TARGET, target, DelayHeaders.UNTIL, Long.toString(dueAt));
        await().atMost(WAIT)
                .until(() -> !delivered.matching(r -> key.equals(r.key())).isEmpty());
    }
}
