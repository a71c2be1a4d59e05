package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.delivery.SharedBucket;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A cap for the service ({@code pump.rateLimits}, {@code scope: service}, the default): two bridge instances on one
 * broker and Redis, each pumping half the shards, deliver a capped target's backlog at the cap together, not at twice
 * it; and when one stops mid-way, the other goes on at the cap.
 *
 * <p>What the code guarantees, and so what is asserted: {@code rate.lua} grants at most a batch plus CAP * w tokens in
 * any w seconds to all instances together, and an instance uses a token within two batches' time of its grant or drops
 * it ({@link SharedBucket}): at most CAP * w + 3 * BATCH sends in any w seconds. A record's timestamp is taken at its
 * send, after its token: a pause between the two can move into a window what an instance had taken before it, at most
 * the tokens it held, under two batches. So over any w seconds at most CAP * w + ALLOWANCE records, ALLOWANCE = 3 * BATCH
 * + 2 * 2 * BATCH for two instances, however slow the machine. With per-instance caps the two would send 2 * CAP.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // child bridges that mostly wait on the cap: beside the other classes
class SharedCapIT {

    private static final int CAP = 50;
    private static final int BATCH = SharedBucket.batchFor(CAP);
    private static final int INSTANCES = 2;
    private static final int ALLOWANCE = 3 * BATCH + INSTANCES * 2 * BATCH;
    private static final int RECORDS = 400;

    /** The bridges' configurations and logs, kept for a look after a failure. */
    private final Path dir = Path.of("target", "shared-cap-it", Long.toString(System.nanoTime()));

    @Test
    void twoInstancesDeliverACappedBacklogAtTheCapTogether(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("capped");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge one = start(servers, names, target, "one");
                ChildBridge two = start(servers, names, target, "two")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            awaitHalfEach(one, two);

            long dueAt = sendAllDueAtOnce(kafka, names, target, "a", RECORDS);
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> delivered.size() >= RECORDS);

            List<KafkaClient.Received> records = delivered.received();
            assertOnceEachNeverEarly(records, dueAt, RECORDS);
            assertUnderTheCap("two instances", records);
            long byOne = one.meter("delay.target.delivered." + target);
            long byTwo = two.meter("delay.target.delivered." + target);
            System.out.printf("[shared cap] delivered by one %d, by two %d%n", byOne, byTwo);
            assertTrue(
                    byOne > 0 && byTwo > 0,
                    "both instances delivered, each could alone at the cap: " + byOne + ", " + byTwo);
        }
    }

    /**
     * One instance stops (SIGTERM) a quarter of the way through the backlog; the other takes its shards and delivers
     * the rest, and then a second backlog that arrives after the first has gone, alone, under the same cap.
     */
    @Test
    void whenOneInstanceStopsMidWayTheOtherGoesOnAtTheCap(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("capped");
        String meter = "delay.target.delivered." + target;
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge survivor = start(servers, names, target, "survivor")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            long stoppingAt;
            long dueAt;
            try (ChildBridge leaving = start(servers, names, target, "leaving")) {
                awaitHalfEach(survivor, leaving);
                dueAt = sendAllDueAtOnce(kafka, names, target, "a", RECORDS);
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> delivered.size() >= RECORDS / 4);
                assertTrue(leaving.meter(meter) > 0, "the leaving instance delivered its share before it stopped");
                stoppingAt = System.currentTimeMillis();
                leaving.jvm().terminate(Duration.ofSeconds(30)); // SIGTERM: it leaves the group
            }
            long aloneFrom = survivor.meter(meter);
            long secondDueAt = sendAllDueAtOnce(kafka, names, target, "b", RECORDS / 4);
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> delivered.size() >= RECORDS + RECORDS / 4);

            List<KafkaClient.Received> records = delivered.received();
            assertOnceEachNeverEarly(
                    records.stream().filter(r -> r.value().startsWith("a")).toList(), dueAt, RECORDS);
            assertOnceEachNeverEarly(
                    records.stream().filter(r -> r.value().startsWith("b")).toList(), secondDueAt, RECORDS / 4);
            assertUnderTheCap("two instances, one stopping, then one", records);
            assertUnderTheCap(
                    "from the SIGTERM on",
                    records.stream()
                            .filter(r -> r.record().timestamp() >= stoppingAt)
                            .toList());
            assertEquals(4, survivor.shards().size(), "the survivor pumps every shard");
            assertTrue(
                    survivor.meter(meter) - aloneFrom >= RECORDS / 4,
                    "the survivor alone delivered the second backlog: " + (survivor.meter(meter) - aloneFrom));
        }
    }

    private ChildBridge start(TestServers servers, TestNames names, String target, String instanceId) {
        return ChildBridge.start(
                dir,
                names,
                servers.kafkaBootstrap(),
                servers.redisUri(),
                instanceId,
                "lease: 30s",
                "rateLimits: {targets: {" + target + ": " + CAP + "}}");
    }

    private static void awaitHalfEach(ChildBridge a, ChildBridge b) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> a.shards().size() == 2 && b.shards().size() == 2);
    }

    /** {@code count} records, keys spread over every shard, all due at one instant a little ahead; returns it. */
    private static long sendAllDueAtOnce(KafkaClient kafka, TestNames names, String target, String prefix, int count)
            throws Exception {
        long dueAt = System.currentTimeMillis() + 3_000;
        List<Future<?>> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sends.add(kafka.sendAsync(
                    names.intake(),
                    prefix + i,
                    prefix + i,
                    DelayHeaders.TARGET,
                    target,
                    DelayHeaders.UNTIL,
                    Long.toString(dueAt)));
        }
        for (Future<?> send : sends) {
            send.get();
        }
        return dueAt;
    }

    private static void assertOnceEachNeverEarly(List<KafkaClient.Received> records, long dueAt, int count) {
        Set<String> values = new HashSet<>();
        for (KafkaClient.Received r : records) {
            assertTrue(values.add(r.value()), "delivered twice: " + r.value());
            assertTrue(r.record().timestamp() >= dueAt, "early: " + r.value());
        }
        assertEquals(count, values.size(), "every record arrived");
    }

    /**
     * Over the whole window (first to last delivery) and over every second of it: at most CAP per second plus the
     * allowance; over the window, within 10 % of the cap.
     */
    private static void assertUnderTheCap(String what, List<KafkaClient.Received> records) {
        List<Long> times = new ArrayList<>();
        records.forEach(r -> times.add(r.record().timestamp()));
        times.sort(Long::compare);
        long window = times.get(times.size() - 1) - times.get(0);
        double rate = (times.size() - 1) * 1000.0 / Math.max(1, window);
        int most = 0;
        for (int from = 0, to = 0; to < times.size(); to++) {
            while (times.get(to) - times.get(from) >= 1_000) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        System.out.printf(
                "[shared cap] %s: %d records in %d ms, %.1f/s for a cap of %d/s; at most %d in any second "
                        + "(bound %d)%n",
                what, times.size(), window, rate, CAP, most, CAP + ALLOWANCE);
        assertTrue(
                times.size() <= CAP * window / 1000.0 + ALLOWANCE,
                what + ": " + times.size() + " records in " + window + " ms, at most " + CAP + "/s plus " + ALLOWANCE);
        assertTrue(most <= CAP + ALLOWANCE, what + ": " + most + " in one second, at most " + (CAP + ALLOWANCE));
        if (times.size() >= RECORDS) { // a whole backlog: long enough for the allowance to be within 10 %
            assertTrue(rate <= CAP * 1.1, what + ": " + rate + "/s over " + window + " ms, cap " + CAP);
        }
    }
}
