package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Recovery without waiting for a lease: a bridge killed with SIGKILL and started again at once gets its partitions
 * back as the same static member and takes what it left in flight back at once (the new fencing epoch hands it over);
 * a survivor takes a dead instance's shards once its session (8 s) ends. Each bound sits well below the wait it would
 * catch, made long here (2 minutes, or 40 s): a bridge that waited could not pass it, since a delivery is never
 * early, and a busy machine has the rest (a JVM once took 36 s to start on a loaded 2-core machine). Each test prints
 * what it measured (docs/reliability.md).
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // beside the other classes; its own tests one after the other
class RecoveryIT {

    private static final int RECORDS = 300;

    /** The bridges' configurations and logs, kept for a look after a failure. */
    private final Path dir = Path.of("target", "recovery-it", Long.toString(System.nanoTime()));

    /**
     * The hand-over of a restart: the restarted static member gets its partitions back without waiting for the old
     * member's session, and what the killed one had claimed and not acked is delivered again at once, not after its
     * lease. Session and lease are 2 minutes here: a bridge that waited for either could not be done before 2 minutes
     * after the kill, and the bound, 90 s after it, leaves a slow JVM start on a busy machine more than a minute. A
     * look-ahead of 1 s keeps messages claimed ahead of their due time, so the kill catches some.
     */
    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void theOnlyBridgeKilledAndRestartedAtOnceHandsItsClaimedMessagesOverAtOnce(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        String[] pump = {"lease: 120s", "lookAhead: 1s"};
        List<String> session = List.of("consumer: {session.timeout.ms: \"120000\"}");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            ChildBridge bridge = ChildBridge.start(
                    dir, names, servers.kafkaBootstrap(), servers.redisUri(), "only", Map.of(), session, pump);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.shards().size() == 4);
            Map<String, Long> dueAt = sendSpread(kafka, names, target, 1_000, 5_000);

            // killed in the middle: some delivered, most still pending, some claimed and not acked
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 10);
            bridge.kill();
            long killedAt = System.currentTimeMillis();
            int beforeKill = delivered.size();
            long claimedAtKill = RedisCounts.inFlight(servers.redisUri(), names, List.of(0, 1, 2, 3));
            assertTrue(beforeKill < RECORDS, "the kill came mid-run");
            assertTrue(claimedAtKill > 0, "the kill caught messages claimed and not yet acked");
            try (ChildBridge restarted = ChildBridge.start(
                    dir, names, servers.kafkaBootstrap(), servers.redisUri(), "only", Map.of(), session, pump)) {
                long runningAt = System.currentTimeMillis(); // its pipeline runs; no partition yet
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> restarted.shards().size() == 4);
                long assignedAt = System.currentTimeMillis();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> redelivered(delivered) >= claimedAtKill);
                long handedOverAt = System.currentTimeMillis();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> keys(delivered).size() >= RECORDS);
                Lateness lateness = check(delivered, dueAt);
                System.out.printf(
                        "[recovery] kill -9 of the only bridge, restarted at once: JVM start to a running "
                                + "pipeline %d ms, to its partitions %d ms more, its %d claimed messages delivered again %d ms "
                                + "after that; %d records, %d delivered before the kill, %d duplicates, %s%n",
                        runningAt - killedAt,
                        assignedAt - runningAt,
                        claimedAtKill,
                        handedOverAt - assignedAt,
                        RECORDS,
                        beforeKill,
                        delivered.size() - RECORDS,
                        lateness);
                assertTrue(
                        assignedAt - killedAt < 90_000,
                        "the restarted member got its partitions " + (assignedAt - killedAt)
                                + " ms after the kill: it waited for the old session (120 s)?");
                assertTrue(
                        handedOverAt - killedAt < 90_000,
                        "the " + claimedAtKill + " messages claimed at the kill were delivered again "
                                + (handedOverAt - killedAt) + " ms after it: they waited for their lease (120 s)?");
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aSurvivorDeliversAKilledInstancesShardsWithoutWaitingForTheirLease(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge survivor = ChildBridge.start(
                        dir, names, servers.kafkaBootstrap(), servers.redisUri(), "survivor", "lease: 120s")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            ChildBridge victim = ChildBridge.start(
                    dir, names, servers.kafkaBootstrap(), servers.redisUri(), "victim", "lease: 120s");
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            victim.shards().size() == 2 && survivor.shards().size() == 2);
            Map<String, Long> dueAt = sendSpread(kafka, names, target, 1_000, 8_000);

            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 10);
            victim.kill();
            int beforeKill = delivered.size();
            await().atMost(Duration.ofSeconds(60)).until(() -> keys(delivered).size() >= RECORDS);
            Lateness lateness = check(delivered, dueAt);
            System.out.printf(
                    "[recovery] kill -9 of one of two bridges, not restarted: %d records, %d delivered "
                            + "before the kill, %d duplicates, %s%n",
                    RECORDS, beforeKill, delivered.size() - RECORDS, lateness);
            assertEquals(4, survivor.shards().size(), "the survivor pumps every shard");
            // what the victim held waited for no lease (2 minutes): that would make it 2 minutes late
            assertTrue(lateness.max() < 90_000, "worst record " + lateness.max() + " ms late: it waited for a lease?");
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aZombieWokenAfterItsShardsWereTakenGetsNoAckAccepted(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                // a 1 s look-ahead keeps messages in flight (claimed ahead, acked half a look-ahead later) at any
                // moment, so the freeze catches some
                ChildBridge survivor = ChildBridge.start(
                        dir,
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        "survivor",
                        "lease: 40s",
                        "lookAhead: 1s");
                ChildBridge zombie = ChildBridge.start(
                        dir,
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        "zombie",
                        "lease: 40s",
                        "lookAhead: 1s")) {
            kafka.createTopics(2, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            zombie.shards().size() == 2 && survivor.shards().size() == 2);
            List<Integer> zombieShards = zombie.shards();
            Map<String, Long> dueAt = sendSpread(kafka, names, target, 1_000, 20_000);

            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 30);
            zombie.jvm().signal("STOP");
            long frozenAt = System.currentTimeMillis();
            long inFlightAtFreeze = RedisCounts.inFlight(servers.redisUri(), names, zombieShards);
            assertTrue(inFlightAtFreeze > 0, "the freeze caught messages in flight");
            await().atMost(Duration.ofSeconds(30)).until(() -> survivor.shards().size() == 4);
            long takenAfter = System.currentTimeMillis() - frozenAt;
            // what the zombie held is delivered again (attempt 2) by the survivor, long before its 40 s lease ends
            await().atMost(Duration.ofSeconds(60)).until(() -> redelivered(delivered) >= inFlightAtFreeze);
            long handedOverAfter = System.currentTimeMillis() - frozenAt;
            // frozen past its lease (40 s), then woken
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> System.currentTimeMillis() - frozenAt > 41_000);
            zombie.jvm().signal("CONT");
            long frozenFor = System.currentTimeMillis() - frozenAt;

            await().atMost(Duration.ofSeconds(60)).until(() -> keys(delivered).size() >= RECORDS);
            Lateness lateness = check(delivered, dueAt);
            // what it held when frozen it sends on waking; every ack of it is refused (the survivor's epoch is newer)
            await().atMost(Duration.ofSeconds(30)).until(() -> zombie.meter("delay.acks-fenced") > 0);
            long fencedAcks = zombie.meter("delay.acks-fenced");
            System.out.printf(
                    "[recovery] zombie (SIGSTOP %d ms, lease 40 s): shards taken after %d ms, its %d "
                            + "in-flight messages delivered again after %d ms, %d acks refused after SIGCONT, %d duplicates, "
                            + "%s%n",
                    frozenFor,
                    takenAfter,
                    inFlightAtFreeze,
                    handedOverAfter,
                    fencedAcks,
                    delivered.size() - RECORDS,
                    lateness);
            // a hand-over that waited for the lease (40 s) could not come before 40 s after the claim
            assertTrue(handedOverAfter < 30_000, "handed over at once, not after the lease: " + handedOverAfter);
            assertTrue(
                    lateness.max() < 30_000, "worst record " + lateness.max() + " ms late: it waited for the lease?");
            // nothing stays in flight: the owners' own acks went through
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RedisCounts.inFlight(servers.redisUri(), names, List.of(0, 1, 2, 3)) == 0);
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aSecondInstanceWithTheSameIdTakesOverAndTheFirstStopsSayingWhy(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge first =
                        ChildBridge.start(dir, names, servers.kafkaBootstrap(), servers.redisUri(), "twin")) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            await().atMost(Duration.ofSeconds(30)).until(() -> first.shards().size() == 4);
            try (ChildBridge second =
                    ChildBridge.start(dir, names, servers.kafkaBootstrap(), servers.redisUri(), "twin")) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> !first.pipeline().path("healthy").asBoolean(true));
                String reason = first.pipeline().path("message").asText();
                System.out.printf("[recovery] the older of two instances with one id: %s%n", reason);
                assertTrue(
                        reason.contains("'twin'")
                                && reason.contains("kafka.instanceId")
                                && reason.contains("DELAY_INSTANCE_ID"),
                        reason);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> second.shards().size() == 4);
                kafka.send(names.intake(), "after", "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 1);
                assertEquals(reason, first.pipeline().path("message").asText(), "the first stays stopped");
            }
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aBridgeFencedOnceByTheGroupRejoinsAndGoesOn(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                ChildBridge bridge =
                        ChildBridge.start(dir, names, servers.kafkaBootstrap(), servers.redisUri(), "solo")) {
            kafka.createTopics(1, target);
            KafkaClient.Collector delivered = kafka.collect(target);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.shards().size() == 4);
            // a join with the bridge's static id fences it, as a coordinator that reloaded an older member id does
            // after a broker restart; once the bridge saw the fence the foreign member leaves, freeing the id
            try (KafkaConsumer<byte[], byte[]> intruder = staticMember(servers.kafkaBootstrap(), names, "solo")) {
                intruder.subscribe(List.of(names.intake()));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    intruder.poll(Duration.ofMillis(100));
                    return Files.readString(bridge.log()).contains("Rejoining with a new consumer");
                });
                intruder.close(
                        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
            }
            String rejoining = Files.readString(bridge.log())
                    .lines()
                    .filter(l -> l.contains("Rejoining"))
                    .findFirst()
                    .orElseThrow();
            System.out.printf("[recovery] a bridge fenced once: %s%n", rejoining.strip());
            await().atMost(Duration.ofSeconds(60)).until(() -> bridge.shards().size() == 4);
            kafka.send(names.intake(), "after", "v", null, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "0");
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 1);
            assertTrue(
                    bridge.pipeline().path("healthy").asBoolean(false),
                    "it rejoined instead of stopping: " + bridge.pipeline());
        }
    }

    /** A consumer joining the bridges' group as the static member {@code instanceId}, with the bridges' protocol. */
    private static KafkaConsumer<byte[], byte[]> staticMember(String bootstrap, TestNames names, String instanceId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, names.group());
        props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Records delivered with a delay-attempt above 1. */
    private static long redelivered(KafkaClient.Collector delivered) {
        return delivered.received().stream()
                .filter(r -> !"1".equals(r.header(DelayHeaders.ATTEMPT)))
                .map(KafkaClient.Received::key)
                .distinct()
                .count();
    }

    /** {@link #RECORDS} records due evenly between {@code fromMillis} and {@code toMillis} from now; their due times. */
    static Map<String, Long> sendSpread(
            KafkaClient kafka, TestNames names, String target, long fromMillis, long toMillis) throws Exception {
        return sendSpread(kafka, names, target, RECORDS, fromMillis, toMillis);
    }

    /** {@code records} records due evenly between {@code fromMillis} and {@code toMillis} from now; their due times. */
    static Map<String, Long> sendSpread(
            KafkaClient kafka, TestNames names, String target, int records, long fromMillis, long toMillis)
            throws Exception {
        return sendSpread(kafka, names, target, "k", records, fromMillis, toMillis);
    }

    /** As above, the records keyed {@code prefix<i>}: several spreads in one test need keys of their own. */
    static Map<String, Long> sendSpread(
            KafkaClient kafka,
            TestNames names,
            String target,
            String prefix,
            int records,
            long fromMillis,
            long toMillis)
            throws Exception {
        Map<String, Future<RecordMetadata>> sends = new HashMap<>();
        Map<String, Long> delays = new HashMap<>();
        for (int i = 0; i < records; i++) {
            long delay = fromMillis + (toMillis - fromMillis) * i / records;
            sends.put(
                    prefix + i,
                    kafka.sendAsync(
                            names.intake(),
                            prefix + i,
                            "v" + i,
                            DelayHeaders.TARGET,
                            target,
                            DelayHeaders.DELAY_MS,
                            Long.toString(delay)));
            delays.put(prefix + i, delay);
        }
        kafka.flush();
        Map<String, Long> dueAt = new HashMap<>();
        for (Map.Entry<String, Future<RecordMetadata>> e : sends.entrySet()) {
            dueAt.put(e.getKey(), e.getValue().get().timestamp() + delays.get(e.getKey()));
        }
        return dueAt;
    }

    /** Every record arrived, none early; the lateness of each key's first delivery. */
    static Lateness check(KafkaClient.Collector delivered, Map<String, Long> dueAt) {
        assertEquals(new TreeSet<>(dueAt.keySet()), keys(delivered), "nothing lost");
        Map<String, Long> first = new HashMap<>();
        for (KafkaClient.Received got : delivered.received()) {
            long due = dueAt.get(got.key());
            assertTrue(
                    got.record().timestamp() >= due,
                    () -> got.key() + " delivered " + (due - got.record().timestamp()) + " ms early");
            first.merge(got.key(), got.record().timestamp() - due, Math::min);
        }
        return Lateness.of(new ArrayList<>(first.values()));
    }

    static Set<String> keys(KafkaClient.Collector collector) {
        return collector.received().stream()
                .map(KafkaClient.Received::key)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
