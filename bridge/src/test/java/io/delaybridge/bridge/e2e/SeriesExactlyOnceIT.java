package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.SeriesHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Series with {@code delivery.exactlyOnce} (docs/recurring-schedules.md): every occurrence is stored under the series
 * id, and the delivered log remembers each one by the id and its occurrence number, so a {@code read_committed}
 * consumer sees occurrences 1..N once each, none early, none taken for the one before it: while the bridge runs, and
 * across a restart after which the missed ones ({@code delay-missed: all}) come due together, in one claim; and 1,000
 * every-second series of 20 through a SIGKILL of the only bridge mid-delivery: each goes on after the restart to its
 * last occurrence, none repeats an occurrence, none is early.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class SeriesExactlyOnceIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void eachOccurrenceIsDeliveredOnceAcrossARestart(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String out = names.target("out");
        String id = "eo-" + System.nanoTime();
        int count = 8;
        try (KafkaClient client = new KafkaClient(servers.kafkaBootstrap())) {
            client.createTopics(1, out);
            KafkaClient.Collector committed = client.collectCommitted(out);
            TestBridge first = bridge(names, servers).start();
            long ts = sendEverySecond(client, names, out, id, "e", count);
            await().atMost(WAIT).until(() -> committed.size() >= 2);
            first.stop();
            int beforeRestart = committed.size();
            assertTrue(beforeRestart < count, "stopped mid-series: " + beforeRestart);
            // down until at least three more occurrences passed: after the restart they are due at once
            long downUntil = ts + (beforeRestart + 3) * 1000L;
            await().atMost(WAIT).until(() -> System.currentTimeMillis() > downUntil);
            TestBridge second = bridge(names, servers).start();
            try {
                await().atMost(WAIT).until(() -> committed.size() >= count);
                // a ninth, if any, would be due by ts + 9 s: the marker is delivered after that
                awaitMarker(client, names, out, committed, ts + (count + 1) * 1000L);
                assertEquals(0, second.meter("delay.already-delivered"), "no occurrence taken as delivered");
            } finally {
                second.stop();
            }
            List<Long> numbers = new ArrayList<>();
            for (KafkaClient.Received r : committed.matching(r -> id.equals(r.header(DelayHeaders.ID)))) {
                long n = Long.parseLong(r.header(DelayHeaders.OCCURRENCE));
                assertEquals(Long.toString(ts + n * 1000), r.header(DelayHeaders.DUE_AT), "due time of " + n);
                assertTrue(r.record().timestamp() >= ts + n * 1000, "occurrence " + n + " early");
                numbers.add(n);
            }
            assertEquals(
                    LongStream.rangeClosed(1, count).boxed().toList(),
                    numbers,
                    "occurrences 1.." + count + " once each, in order");
        }
    }

    @Test
    void aThousandEverySecondSeriesSurviveASigkillWithoutARepeat(TestServers servers) throws Exception {
        int seriesCount = 1000;
        int count = 20;
        TestNames names = TestNames.unique(servers);
        String out = names.target("out");
        Path dir = Path.of("target", "series-exactly-once-it", Long.toString(System.nanoTime()));
        Map<String, String> exactlyOnce = Map.of("DELAY_EXACTLY_ONCE", "true");
        try (KafkaClient client = new KafkaClient(servers.kafkaBootstrap())) {
            client.createTopics(2, out);
            KafkaClient.Collector committed = client.collectCommitted(out);
            ChildBridge victim =
                    ChildBridge.start(dir, names, servers.kafkaBootstrap(), servers.redisUri(), "victim", exactlyOnce);
            Map<String, Future<RecordMetadata>> sent = new HashMap<>();
            for (int i = 0; i < seriesCount; i++) {
                String id = "s" + i + "-" + System.nanoTime();
                sent.put(id, sendEverySecondAsync(client, names, out, id, count));
            }
            client.flush();
            Map<String, Long> timestamps = new HashMap<>();
            for (Map.Entry<String, Future<RecordMetadata>> e : sent.entrySet()) {
                timestamps.put(
                        e.getKey(), e.getValue().get(30, TimeUnit.SECONDS).timestamp());
            }
            // mid-series: some occurrences of every round delivered, most still to come
            await().atMost(WAIT).until(() -> committed.size() >= seriesCount * 3);
            victim.kill();
            long restartedAt = System.currentTimeMillis();
            assertTrue(committed.size() < seriesCount * count / 2, "killed mid-series: " + committed.size());
            try (ChildBridge restarted = ChildBridge.start(
                    dir, names, servers.kafkaBootstrap(), servers.redisUri(), "victim", exactlyOnce)) {
                try {
                    await().atMost(Duration.ofSeconds(240)).until(() -> committed.size() >= seriesCount * count);
                } catch (ConditionTimeoutException e) {
                    throw new AssertionError(shortOf(committed, timestamps.keySet(), count, restarted), e);
                }
                // a 21st of any series would be due by its ts + 21 s: a marker after that comes after it
                long last = timestamps.values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElseThrow();
                awaitMarker(client, names, out, committed, last + (count + 1) * 1000L);
            }
            Map<String, List<Long>> numbers = new TreeMap<>();
            Map<String, Long> lastAfterRestart = new HashMap<>();
            for (KafkaClient.Received r : committed.matching(r -> timestamps.containsKey(r.header(DelayHeaders.ID)))) {
                String id = r.header(DelayHeaders.ID);
                long n = Long.parseLong(r.header(DelayHeaders.OCCURRENCE));
                long due = timestamps.get(id) + n * 1000;
                assertEquals(Long.toString(due), r.header(DelayHeaders.DUE_AT), id + " due time of " + n);
                assertTrue(r.record().timestamp() >= due, id + " occurrence " + n + " early");
                numbers.computeIfAbsent(id, k -> new ArrayList<>()).add(n);
                if (r.record().timestamp() > restartedAt) {
                    lastAfterRestart.merge(id, n, Math::max);
                }
            }
            List<Long> all = LongStream.rangeClosed(1, count).boxed().toList();
            for (String id : timestamps.keySet()) {
                List<Long> got = new ArrayList<>(numbers.getOrDefault(id, List.of()));
                got.sort(null);
                assertEquals(all, got, id + ": occurrences 1.." + count + " once each");
                assertEquals((long) count, lastAfterRestart.get(id), id + " went on after the restart");
            }
        }
    }

    /** What a read_committed reader lacks of every series' occurrences 1..count, and what the bridge says it holds. */
    private static String shortOf(KafkaClient.Collector committed, Set<String> ids, int count, ChildBridge bridge) {
        Map<String, TreeSet<Long>> got = new HashMap<>();
        for (KafkaClient.Received r : committed.matching(r -> ids.contains(r.header(DelayHeaders.ID)))) {
            got.computeIfAbsent(r.header(DelayHeaders.ID), k -> new TreeSet<>())
                    .add(Long.parseLong(r.header(DelayHeaders.OCCURRENCE)));
        }
        List<String> lacking = new ArrayList<>();
        for (String id : ids) {
            TreeSet<Long> numbers = got.getOrDefault(id, new TreeSet<>());
            if (numbers.size() < count) {
                lacking.add(id + " has " + numbers);
            }
        }
        return String.format(
                "%d records read_committed; %d of %d series short, e.g. %s; the bridge: delivered %d, already delivered"
                        + " %d, pending %.0f, pipeline %s; the last warnings of %s: %s",
                committed.size(),
                lacking.size(),
                ids.size(),
                lacking.subList(0, Math.min(3, lacking.size())),
                bridge.meter("delay.delivered"),
                bridge.meter("delay.already-delivered"),
                bridge.gauge("delay.pending"),
                bridge.pipeline(),
                bridge.log(),
                lastWarnings(bridge.log()));
    }

    private static List<String> lastWarnings(Path log) {
        try (Stream<String> lines = Files.lines(log)) {
            List<String> warnings = lines.filter(l -> l.startsWith("WARN") || l.startsWith("ERROR"))
                    .toList();
            return warnings.subList(Math.max(0, warnings.size() - 5), warnings.size());
        } catch (IOException e) {
            return List.of(e.toString());
        }
    }

    private static TestBridge bridge(TestNames names, TestServers servers) {
        return new TestBridge(
                names, servers.kafkaBootstrap(), servers.redisUri(), TestBridge.set("delivery.exactlyOnce", "true"));
    }

    /**
     * Sends a one-shot marker due at {@code dueAt} to {@code out} and waits until a read_committed reader has it:
     * whatever was due before it has been delivered by then.
     */
    private static void awaitMarker(
            KafkaClient client, TestNames names, String out, KafkaClient.Collector committed, long dueAt) {
        String marker = "marker-" + System.nanoTime();
        client.send(
                names.intake(), marker, "m", null, DelayHeaders.TARGET, out, DelayHeaders.UNTIL, Long.toString(dueAt));
        await().atMost(WAIT)
                .until(() -> !committed.matching(r -> marker.equals(r.key())).isEmpty());
    }

    /** Writes a series due every second, {@code count} occurrences, every missed one delivered; its timestamp. */
    private static long sendEverySecond(
            KafkaClient client, TestNames names, String out, String id, String value, int count) {
        return client.send(names.intake(), id, value, null, everySecond(out, id, count))
                .timestamp();
    }

    /** As {@link #sendEverySecond}, without waiting for the broker. */
    private static Future<RecordMetadata> sendEverySecondAsync(
            KafkaClient client, TestNames names, String out, String id, int count) {
        return client.sendAsync(names.intake(), id, "v", everySecond(out, id, count));
    }

    private static String[] everySecond(String out, String id, int count) {
        return new String[] {
            DelayHeaders.TARGET,
            out,
            DelayHeaders.ID,
            id,
            SeriesHeaders.EVERY,
            "1s",
            SeriesHeaders.COUNT,
            Integer.toString(count),
            SeriesHeaders.MISSED,
            "all"
        };
    }
}
