package io.delaybridge.bridge.pump;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.faults.Crashes;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.testkit.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a pump IT stands on: a one-shard store on the real Redis, a one-partition target topic on the real broker
 * (the target catalog looks it up), and kafka-clients' MockProducer in place of the producer, so a test sees every
 * send and when it was made, and may hold their completion. Redis runs on this host: its clock is the host's. Pumps are wired as the application wires them.
 */
final class PumpRig implements AutoCloseable {

    final String topic;
    final String target;
    final RedisDelayStore store;
    final MockProducer<byte[], byte[]> producer;
    /** When each send was made (host clock, ms), in the order of {@code producer.history()}. */
    final List<Long> sentAtMillis = new CopyOnWriteArrayList<>();
    final MetricRegistry metrics = new MetricRegistry();
    private final Admin admin;

    /** With {@code autoComplete}, sends succeed at once; without, the test completes them. */
    PumpRig(TestServers servers, String name, boolean autoComplete) throws Exception {
        topic = servers.unique(name);
        target = topic + "-out";
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        store = RedisDelayStore.connect(RedisStoreOptions.of(servers.redisUri(), topic, 1).withKeyPrefix(topic));
        admin.createTopics(List.of(new NewTopic(target, Optional.of(1), Optional.empty())))
                .all().get(30, TimeUnit.SECONDS);
        producer = new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer()) {
            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
                sentAtMillis.add(System.currentTimeMillis());
                return super.send(record, callback);
            }
        };
    }

    Pump pump(PumpSettings settings) {
        return pump(store, settings, Clock.systemUTC());
    }

    /** A pump on {@code store} (e.g. a proxy of {@link #store}) whose host clock is {@code clock}. */
    Pump pump(DelayStore store, PumpSettings settings, Clock clock) {
        Delivery delivery = Delivery.plain(producer,
                new TargetCatalog(admin, Clock.systemUTC(), 60_000, 5_000, 5_000), topic + "-dlq");
        return new Pump(store, delivery, new TargetRates(0, Map.of(), metrics),
                new ExponentialBackoff(3, 100, 1_000), settings,
                new PumpMetrics(metrics, new DeadletterMeters(metrics)), clock, Crashes.NONE);
    }

    /**
     * {@code store}, with every {@code claimAsync} answered by {@code claims}, which is given the real call (to make,
     * wrap or skip); every other call goes straight to {@code store}.
     */
    static DelayStore interceptingClaims(DelayStore store,
            Function<Supplier<CompletableFuture<ClaimBatch>>, CompletableFuture<ClaimBatch>> claims) {
        return intercepting(store, "claimAsync", real -> {
            @SuppressWarnings("unchecked")
            Supplier<CompletableFuture<ClaimBatch>> claim = () -> (CompletableFuture<ClaimBatch>) real.get();
            return claims.apply(claim);
        });
    }

    /** {@code store}, counting its {@code ackAsync} calls in {@code acks}. */
    static DelayStore countingAcks(DelayStore store, AtomicInteger acks) {
        return intercepting(store, "ackAsync", real -> {
            acks.incrementAndGet();
            return real.get();
        });
    }

    /** {@code store}, with every call of {@code methodName} answered by {@code calls}, given the real call. */
    private static DelayStore intercepting(DelayStore store, String methodName,
            Function<Supplier<Object>, Object> calls) {
        return (DelayStore) Proxy.newProxyInstance(DelayStore.class.getClassLoader(), new Class<?>[] {DelayStore.class},
                (proxy, method, args) -> {
                    Supplier<Object> real = () -> {
                        try {
                            return method.invoke(store, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
                        } catch (IllegalAccessException e) {
                            throw new IllegalStateException(e);
                        }
                    };
                    return method.getName().equals(methodName) ? calls.apply(real) : real.get();
                });
    }

    /** Stores a one-byte message for the target, as the intake would store offset {@code offset} of partition 0. */
    void schedule(long offset, long dueAt) throws Exception {
        store.write(List.of(scheduleOp(offset, dueAt))).get(10, TimeUnit.SECONDS);
    }

    WriteOp.Schedule scheduleOp(long offset, long dueAt) {
        String origin = topic + "/0/" + offset;
        byte[] envelope = EnvelopeCodec.encode(
                new Envelope(target, null, origin, null, new byte[] {(byte) offset}, List.of()));
        return new WriteOp.Schedule(topic + "-0-" + offset, dueAt, origin, envelope);
    }

    @Override
    public void close() {
        store.close();
        admin.close();
    }
}
