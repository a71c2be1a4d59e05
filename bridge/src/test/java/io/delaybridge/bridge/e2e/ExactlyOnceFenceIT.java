package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code delivery.exactlyOnce}: a bridge that takes a shard fences at once every other instance recorded as a writer of
 * the shard's transactions, and a bridge that starts fences its own earlier run's producers, so an earlier owner's
 * transaction left open (a killed or frozen bridge) stops holding back {@code read_committed} consumers of its targets
 * when the shard is taken, not when the broker's transaction timeout aborts it.
 */
@ExtendWith(RealServersExtension.class)
class ExactlyOnceFenceIT {

    /** Far beyond every wait below: only a fence can end the zombies' transactions within the test. */
    private static final Duration ZOMBIE_TIMEOUT = Duration.ofMinutes(10);

    private final Path dir = Path.of("target", "exactly-once-fence-it", Long.toString(System.nanoTime()));

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    void aShardTakenAbortsTheTransactionsItsEarlierOwnerLeftOpenAtOnce(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String target = names.target("out");
        List<KafkaProducer<byte[], byte[]>> zombies = new ArrayList<>();
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(1, target); // one partition: any open transaction on it holds back read_committed
            KafkaClient.Collector committed = kafka.collectCommitted(target);
            KafkaClient.Collector uncommitted = kafka.collect(target);
            // an earlier owner of every shard, another instance recorded as a writer of it, and this instance's own
            // killed run, each with a transaction open on the target: bridges killed mid-commit
            try (RedisDelayStore store = RedisDelayStore.connect(
                    RedisStoreOptions.of(servers.redisUri(), names.intake(), 4).withKeyPrefix(names.keyPrefix()))) {
                for (int shard = 0; shard < 4; shard++) {
                    store.transactionWriters()
                            .register(shard, "earlier-" + shard)
                            .get(30, TimeUnit.SECONDS);
                }
            }
            for (String id : transactionalIds(names)) {
                KafkaProducer<byte[], byte[]> zombie = zombie(servers.kafkaBootstrap(), id);
                zombies.add(zombie);
                zombie.beginTransaction();
                zombie.send(new ProducerRecord<>(target, KafkaClient.bytes("zombie"), KafkaClient.bytes(id)))
                        .get(30, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> uncommitted.size() == zombies.size());

            try (ChildBridge bridge = ChildBridge.start(
                    dir,
                    names,
                    servers.kafkaBootstrap(),
                    servers.redisUri(),
                    "only",
                    Map.of("DELAY_EXACTLY_ONCE", "true"))) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.shards().size() == 4);
                long tookAt = System.nanoTime();
                // nothing is due yet: a plain record written behind the zombies' shows the shards were fenced on
                // being taken, not on a first delivery
                kafka.send(target, "probe", "probe", null);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> committed.values().contains("probe"));
                long fencedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - tookAt);

                Map<String, Long> dueAt = RecoveryIT.sendSpread(kafka, names, target, "k", 40, 0, 1_000);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> RecoveryIT.keys(committed).containsAll(dueAt.keySet()));
                assertFalse(committed.values().stream().anyMatch(v -> v.startsWith(names.group())), "zombies seen");
                assertEquals(List.of(), Copies.duplicates(committed), "read_committed saw records twice");
                for (KafkaClient.Received received : committed.received()) {
                    Long due = dueAt.get(received.key());
                    assertTrue(due == null || received.record().timestamp() >= due, "never early");
                }
                for (KafkaProducer<byte[], byte[]> zombie : zombies) {
                    assertThrows(KafkaException.class, zombie::commitTransaction, "the zombie was fenced");
                }
                java.util.Set<String> delivered = RecoveryIT.keys(committed);
                delivered.remove("probe");
                assertEquals(new TreeSet<>(dueAt.keySet()), delivered, "every record delivered, nothing else");
                System.out.printf(
                        "[exactly-once] %d open transactions of earlier owners: read_committed reads on %d ms after"
                                + " the shards were taken (the zombies' timeout %d s)%n",
                        zombies.size(), fencedMillis, ZOMBIE_TIMEOUT.toSeconds());
            }
        } finally {
            zombies.forEach(zombie -> zombie.close(Duration.ZERO));
        }
    }

    /** The transactional ids of the earlier writers of shards 0-3, and of this bridge's own earlier run ("only"). */
    private static List<String> transactionalIds(TestNames names) {
        List<String> ids = new ArrayList<>();
        List<String> instances = new ArrayList<>(List.of("only"));
        for (int shard = 0; shard < 4; shard++) {
            instances.add("earlier-" + shard);
        }
        for (String instance : instances) {
            String id = names.group() + "-" + names.intake() + "-" + instance;
            ids.add(id + "-a");
            ids.add(id + "-b"); // an instance's producers take turns: both ids are fenced
        }
        return ids;
    }

    private static KafkaProducer<byte[], byte[]> zombie(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(ZOMBIE_TIMEOUT.toMillis()));
        KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions();
        return producer;
    }
}
