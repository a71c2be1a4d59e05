package io.delaybridge.bridge.express;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.delivery.TokenBucket;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.WrittenBatch;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Clock;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An express record whose first send fails is parked under the write fence its shard had when the intake handed the
 * record over, not the one it has when the park is written: a zombie whose partition moved on while its send was out
 * must not store the record again (the partition's new owner reads it again, and may have delivered and forgotten it
 * already), while the instance's other writes into that shard, no longer fenced once the partition went, are stored.
 * The store is the real Redis and the target topic is on the real broker; the producer is Kafka's {@code MockProducer},
 * so that the test decides when and how the send ends.
 */
@ExtendWith(RealServersExtension.class)
class ExpressParkFenceIT {

    private final Map<Integer, Long> fences = new ConcurrentHashMap<>();
    private final List<String> settled = new CopyOnWriteArrayList<>();
    private final List<String> abandoned = new CopyOnWriteArrayList<>();
    private final MockProducer<byte[], byte[]> producer =
            new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    private String topic;
    private RedisDelayStore store;
    private Admin admin;
    private ExpressPath express;
    private RedisClock redisClock;

    @BeforeEach
    void start(TestServers servers) throws Exception {
        topic = servers.unique("park-fence");
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        admin.createTopics(List.of(new NewTopic(topic + "-out", Optional.of(1), Optional.empty())))
                .all()
                .get(30, TimeUnit.SECONDS);
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), topic, 1).withKeyPrefix(topic));
        store.fenceWrites(shard -> fences.getOrDefault(shard, -1L)); // as the pump gives its epochs
        MetricRegistry metrics = new MetricRegistry();
        Delivery delivery = Delivery.plain(
                producer, new TargetCatalog(admin, Clock.systemUTC(), 60_000, 5_000, 5_000), topic + "-dlq");
        ExpressSends sends = new ExpressSends(
                delivery, new TargetRates(0, Map.of(), TokenBucket.PER_INSTANCE, metrics), shard -> false);
        redisClock = new RedisClock(Time.of(Clock.systemUTC()), store::now);
        express = sends.express(0, store, new NoMeters(), redisClock);
        express.start();
    }

    @AfterEach
    void stop() throws Exception {
        express.stop();
        store.close();
        admin.close();
    }

    @Test
    void aParkAfterThePartitionMovedIsRefusedWhileOtherWritesIntoTheShardAreStored() throws Exception {
        fences.put(0, store.acquire(0)); // this instance holds shard 0
        handOver(record(7));
        await().atMost(Duration.ofSeconds(30)).until(() -> producer.history().size() == 1);

        fences.remove(0); // the partition is revoked here (the pump lifts the fence)...
        long newer = store.acquire(0); // ...and its new owner takes the shard
        assertTrue(newer > 0);
        assertTrue(producer.errorNext(new TimeoutException("the send timed out")), "the send was still out");

        await().atMost(Duration.ofSeconds(30)).until(() -> !abandoned.isEmpty() || !settled.isEmpty());
        assertEquals(List.of(topic + "-0-7"), abandoned, "left for the new owner to read again");
        assertEquals(List.of(), settled, "never settled here: its offset is not committed");
        assertEquals(0, store.stats(0).pending(), "the park stored nothing");

        // a record of another partition with an explicit id that lives in this shard: not fenced here any more
        WriteOp.Schedule other = new WriteOp.Schedule(
                "order-1", store.now() + 600_000, new IntakeOrigin(topic, 3, 1), envelope(1), 1_000);
        assertEquals(List.of(WriteResult.STORED), store.write(List.of(other)).get(10, TimeUnit.SECONDS));
        assertEquals(1, store.stats(0).pending());
    }

    @Test
    void aParkWhileTheShardIsStillHeldIsStored() throws Exception {
        fences.put(0, store.acquire(0));
        handOver(record(8));
        await().atMost(Duration.ofSeconds(30)).until(() -> producer.history().size() == 1);
        assertTrue(producer.errorNext(new TimeoutException("the send timed out")), "the send was still out");

        await().atMost(Duration.ofSeconds(30)).until(() -> !abandoned.isEmpty() || !settled.isEmpty());
        assertEquals(List.of(topic + "-0-8"), settled, "parked, so settled");
        assertEquals(List.of(), abandoned);
        assertEquals(1, store.stats(0).pending(), "Redis holds it for the pump's retries");
    }

    /** Hands {@code record} to the express path as the intake does once its poll is stored and its check passed. */
    private void handOver(TestRecord record) {
        redisClock.refreshIfStale(); // the intake feeds Redis' clock with its checks' readings
        BitSet passed = new BitSet();
        passed.set(0);
        WrittenBatch checks = new WrittenBatch(List.of(), passed, store.now(), System.nanoTime());
        express.stored(List.of(record), checks, 1, 1, new ExpressPath.Settling<TestRecord>() {
            @Override
            public void settled(TestRecord r) {
                settled.add(r.id());
            }

            @Override
            public void abandoned(TestRecord r) {
                abandoned.add(r.id());
            }
        });
    }

    /** Offset {@code offset} of intake partition 0, due now, with its default id. */
    private TestRecord record(long offset) {
        Envelope envelope =
                new Envelope(topic + "-out", null, topic + "/0/" + offset, null, new byte[] {(byte) offset}, List.of());
        long dueAt = store.now();
        WriteOp.Schedule op = new WriteOp.Schedule(
                topic + "-0-" + offset, dueAt, new IntakeOrigin(topic, 0, offset), EnvelopeCodec.encode(envelope));
        return new TestRecord(op.id(), dueAt, envelope, op, offset);
    }

    private byte[] envelope(long offset) {
        return EnvelopeCodec.encode(new Envelope(
                topic + "-out", null, topic + "/3/" + offset, null, new byte[] {(byte) offset}, List.of()));
    }

    private record TestRecord(String id, long dueAt, Envelope envelope, WriteOp.Schedule op, long offset)
            implements ExpressPath.Record {
        @Override
        public int partition() {
            return 0;
        }
    }

    private static final class NoMeters implements ExpressPath.Meters {
        @Override
        public void delivered(long latenessMillis) {}

        @Override
        public void fellBack() {}

        @Override
        public void alreadyDelivered() {}

        @Override
        public void parked(List<WriteResult> results) {}
    }
}
