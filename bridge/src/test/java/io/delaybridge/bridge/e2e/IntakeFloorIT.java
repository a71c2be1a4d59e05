package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code delivery.exactlyOnce} when Kafka's group coordinator loses commits: the fault campaign saw a single broker
 * killed mid-traffic come back with the intake group's offsets of minutes before. Here the group's offsets are set
 * back to 0 while no bridge runs, as such a coordinator would answer; the restarted bridge reads from the floor its
 * delivered log holds and delivers nothing twice to a {@code read_committed} consumer.
 */
@ExtendWith(RealServersExtension.class)
class IntakeFloorIT {

    private static final Map<String, String> EXACTLY_ONCE = Map.of("DELAY_EXACTLY_ONCE", "true");

    private final Path dir = Path.of("target", "intake-floor-it", Long.toString(System.nanoTime()));

    @Test
    void committedOffsetsSetBackBelowTheFloorDeliverNothingTwice(TestServers servers) throws Exception {
        int records = 400;
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, target);
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            Map<String, Long> dueAt = new HashMap<>();
            Map<Integer, Long> before;
            try (ChildBridge first = start(names, servers)) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> first.shards().size() == 4);
                dueAt.putAll(RecoveryIT.sendSpread(kafka, names, target, "a", records, 200, 2_000));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RecoveryIT.keys(committed).size() >= records);
                // the group committed past every record: the bridge forgets their ids once it knows
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> kafka.committedOffsets(names.group(), names.intake()).values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()
                                >= records);
                before = kafka.committedOffsets(names.group(), names.intake());
            }
            Map<Integer, Long> rewound = new TreeMap<>();
            before.keySet().forEach(partition -> rewound.put(partition, 0L));
            kafka.rewindCommittedOffsets(names.group(), names.intake(), rewound);
            assertEquals(rewound, kafka.committedOffsets(names.group(), names.intake()), "the offsets were set back");

            try (ChildBridge second = start(names, servers)) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> second.shards().size() == 4);
                // records read after the old ones in each partition: once they arrived, whatever the bridge read
                // again from the set-back offsets has been stored (and, due long ago, delivered) before them
                dueAt.putAll(RecoveryIT.sendSpread(kafka, names, target, "b", 40, 1_000, 1_500));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RecoveryIT.keys(committed).size() >= records + 40);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> kafka.committedOffsets(names.group(), names.intake()).values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()
                                >= records + 40);
                String log = Files.readString(second.log());
                assertEquals(List.of(), RecoveryIT.duplicates(committed), "read_committed saw these records twice");
                RecoveryIT.check(committed, dueAt);
                assertTrue(log.contains("lost commits"), "the bridge said it read from the floor: " + second.log());
                System.out.printf(
                        "[intake-floor] offsets %s set back to 0: %d records, read_committed 0 duplicates%n",
                        before, records + 40);
            }
        }
    }

    private ChildBridge start(TestNames names, TestServers servers) {
        return ChildBridge.start(dir, names, servers.kafkaBootstrap(), servers.redisUri(), "only", EXACTLY_ONCE);
    }
}
