package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.Committer;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.delivery.DeliveredLog;
import io.delaybridge.bridge.delivery.DeliveredLogTopic;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.IntakeCommits;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TransactionalSends;
import io.delaybridge.bridge.delivery.WriterRegistry;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Exactly once: a shard whose transaction failed is opened again (which fences every other recorded writer of the
 * shard's transactions) only once this instance proved its epoch in Redis. A zombie, woken after the shard's new owner
 * took it and fenced the zombie's producers, finds its transaction fenced; opening again without that proof would fence
 * the new owner's open transaction in turn, and what the zombie then learnt from the delivered log could be out of
 * date. Real Redis and a real broker; the new owner is a second store connection, the registry of writers, and
 * producers of its own and of the zombie's transactional ids.
 */
@ExtendWith(RealServersExtension.class)
class ShardOpeningIT {

    @Test
    void aZombieWhoseTransactionFailedDoesNotFenceTheNewOwner(TestServers servers) throws Exception {
        String name = servers.unique("reopen");
        String intake = name + "-intake";
        String target = name + "-out";
        String prefix = name + "-group-" + intake;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
                RedisDelayStore zombieStore = store(servers, name);
                RedisDelayStore ownerStore = store(servers, name)) {
            admin.createTopics(List.of(new NewTopic(target, Optional.of(1), Optional.empty())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            DeliveredLogTopic.prepare(admin, intake + "-delivered", 1, Optional.of((short) 1), Time.SYSTEM);
            Delivery zombie = exactlyOnce(servers, admin, name, intake, prefix, zombieStore);
            try {
                // the intake opens the shard at its assignment; then the pump takes its epoch
                assertTrue(zombie.openShards(List.of(0)).isEmpty(), "the shard opened at its assignment");
                ShardOwnership owned = new ShardOwnership(
                        zombieStore,
                        new PumpSettings(100, 30_000, 1_000, 1_000, 0),
                        new PumpMetrics(new MetricRegistry(), new DeadletterMeters(new MetricRegistry())),
                        new Wakeups(Time.SYSTEM),
                        Time.SYSTEM);
                ShardOpening opening = new ShardOpening(
                        zombieStore,
                        zombie,
                        owned,
                        100,
                        1_000,
                        new ThrottledWarning(LoggerFactory.getLogger(ShardOpeningIT.class), Clock.systemUTC(), 1_000));
                OwnedShard shard = new OwnedShard(0, Time.SYSTEM.nanoseconds());
                assertEquals(List.of(shard), opening.ready(List.of(shard)), "ready once its epoch is taken");

                // frozen, it lost the shard: the new owner took the epoch, recorded itself as a writer of the
                // shard's transactions, fenced the zombie's producers, and its own transaction is open
                ownerStore.acquire(0);
                assertEquals(
                        List.of("zombie"),
                        ownerStore.transactionWriters().register(0, "owner").get(30, TimeUnit.SECONDS),
                        "the zombie is a recorded writer of the shard");
                for (String fenced : List.of(prefix + "-zombie-a", prefix + "-zombie-b")) {
                    try (KafkaProducer<byte[], byte[]> fence = producer(servers, fenced)) {
                        fence.initTransactions();
                    }
                }
                try (KafkaProducer<byte[], byte[]> owner = producer(servers, prefix + "-owner-a")) {
                    owner.initTransactions();
                    owner.beginTransaction();
                    owner.send(new ProducerRecord<>(target, "owner".getBytes(), "owner".getBytes()))
                            .get(30, TimeUnit.SECONDS);

                    // woken, the zombie sends what it held: its transaction is fenced, its outcome unknown to it
                    // (in doubt until the shard is opened again), the shard no longer open
                    CompletableFuture<Long> sent = new CompletableFuture<>();
                    zombie.deliver(0, envelope(target, intake), "m1", 0, 1, result(sent));
                    zombie.flush();
                    assertFalse(zombie.shardOpen(0), "the fenced transaction closed the shard");
                    assertFalse(sent.isDone(), "the fenced transaction's send stays in doubt");

                    // its pump comes to the shard before anything else told it of the new owner
                    assertEquals(List.of(), opening.ready(List.of(shard)), "a fenced shard is not ready");
                    assertTrue(shard.revoked, "the stale epoch made the zombie let the shard go");
                    assertFalse(zombie.shardOpen(0), "the zombie did not open the shard's producers again");
                    assertDoesNotThrow(owner::commitTransaction, "the new owner's transaction was not fenced");
                }
            } finally {
                zombie.close();
            }
        }
    }

    private static RedisDelayStore store(TestServers servers, String name) {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), name + "-intake", 1).withKeyPrefix(name));
    }

    /** A delivery with exactly once as the application builds it; commits only when flushed. */
    private static Delivery exactlyOnce(
            TestServers servers, Admin admin, String name, String intake, String prefix, RedisDelayStore store) {
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap());
        TransactionalSends sends = new TransactionalSends(
                id -> producer(servers, id),
                new TransactionalSends.Writer(prefix, "zombie", new WriterRegistry() {
                    @Override
                    public List<String> register(int shard, String instance) {
                        return store.transactionWriters()
                                .register(shard, instance)
                                .join();
                    }

                    @Override
                    public void forget(int shard, java.util.Collection<String> fenced) {
                        store.transactionWriters().forget(shard, fenced).join();
                    }
                }),
                intake,
                new DeliveredLog(intake + "-delivered", consumer, 30_000, Time.SYSTEM),
                new IntakeCommits(admin, name + "-group", 250, Time.SYSTEM),
                new Committer(TimeUnit.HOURS.toMillis(1), Time.SYSTEM));
        return Delivery.exactlyOnce(
                sends, new TargetCatalog(admin, Clock.systemUTC(), 60_000, 5_000, 5_000), name + "-dlq");
    }

    private static KafkaProducer<byte[], byte[]> producer(TestServers servers, String transactionalId) {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        servers.kafkaBootstrap(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        transactionalId,
                        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                        60_000),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static Envelope envelope(String target, String intake) {
        return new Envelope(target, null, Envelope.origin(intake, 0, 5), null, "zombie".getBytes(), List.of());
    }

    private static Delivery.Result result(CompletableFuture<Long> sent) {
        return new Delivery.Result() {
            @Override
            public void delivered(long timestamp) {
                sent.complete(timestamp);
            }

            @Override
            public void failed(Exception error) {
                sent.completeExceptionally(error);
            }
        };
    }
}
