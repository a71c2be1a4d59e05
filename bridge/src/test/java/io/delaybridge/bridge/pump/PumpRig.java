package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.delivery.TokenBucket;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a pump IT stands on: a one-shard store on the real Redis, a one-partition target topic on the real broker
 * (the target catalog looks it up), and a real producer to that broker that records every send and when it was made,
 * and may hold each send's acknowledgement from the pump until the test releases it ({@link RecordingProducer}).
 * Redis runs on this host: its clock is the host's. Pumps are wired as the application wires them.
 */
final class PumpRig implements AutoCloseable {

    final String topic;
    final String target;
    final RedisDelayStore store;
    final RecordingProducer producer;
    /** When each send was made (host clock, ms), in the order of {@code producer.history()}. */
    final List<Long> sentAtMillis;

    final MetricRegistry metrics = new MetricRegistry();
    private final Admin admin;

    /**
     * With {@code autoComplete}, the pump sees each acknowledgement as the broker gives it; without, the test releases
     * them ({@link RecordingProducer#completeNext()}).
     */
    PumpRig(TestServers servers, String name, boolean autoComplete) throws Exception {
        topic = servers.unique(name);
        target = topic + "-out";
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), topic, 1).withKeyPrefix(topic));
        admin.createTopics(List.of(new NewTopic(target, Optional.of(1), Optional.empty())))
                .all()
                .get(30, TimeUnit.SECONDS);
        producer = new RecordingProducer(servers.kafkaBootstrap(), !autoComplete);
        sentAtMillis = producer.sentAtMillis;
    }

    /**
     * Waits until the broker has answered at least {@code sends} sends, and every send made so far, and the pump has
     * then acknowledged them in the store (nothing left in flight). The broker's answer may take long on a busy
     * machine and is not the pump's to bound (a lease may even run out first and send a message again); the pump's own
     * step, acknowledging in Redis what the broker acknowledged, must follow within seconds.
     */
    void awaitAcknowledged(int sends) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            int answered = producer.acknowledged();
            return answered >= sends && answered >= producer.history().size();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(0).inFlight() == 0);
    }

    Pump pump(PumpSettings settings) {
        return pump(store, settings, Clock.systemUTC());
    }

    /** A pump on {@code store} (e.g. a proxy of {@link #store}) whose host clock is {@code clock}. */
    Pump pump(DelayStore store, PumpSettings settings, Clock clock) {
        Delivery delivery = Delivery.plain(
                producer, new TargetCatalog(admin, Clock.systemUTC(), 60_000, 5_000, 5_000), topic + "-dlq");
        Time time = Time.of(clock);
        return new Pump(
                store,
                new PumpSends(
                        delivery,
                        new TargetRates(0, Map.of(), TokenBucket.PER_INSTANCE, metrics),
                        new ExponentialBackoff(3, 100, 1_000)),
                settings,
                new PumpMetrics(metrics, new DeadletterMeters(metrics)),
                new RedisClock(time, store::now),
                PipelineProbe.NONE);
    }

    /**
     * {@code store}, with every {@code claimAsync} answered by {@code claims}, which is given the real call (to make,
     * wrap or skip); every other call goes straight to {@code store}.
     */
    static DelayStore interceptingClaims(
            DelayStore store, Function<Supplier<CompletableFuture<ClaimBatch>>, CompletableFuture<ClaimBatch>> claims) {
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

    /** {@code store}, whose wake-ups never reach the pump: {@code onWake} registers nothing. */
    static DelayStore withoutWakeUps(DelayStore store) {
        return intercepting(store, "onWake", real -> null);
    }

    /** {@code store}, with every call of {@code methodName} answered by {@code calls}, given the real call. */
    private static DelayStore intercepting(
            DelayStore store, String methodName, Function<Supplier<Object>, Object> calls) {
        return (DelayStore) Proxy.newProxyInstance(
                DelayStore.class.getClassLoader(), new Class<?>[] {DelayStore.class}, (proxy, method, args) -> {
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
        byte[] envelope =
                EnvelopeCodec.encode(new Envelope(target, null, origin, null, new byte[] {(byte) offset}, List.of()));
        return new WriteOp.Schedule(topic + "-0-" + offset, dueAt, new IntakeOrigin(topic, 0, offset), envelope);
    }

    @Override
    public void close() {
        producer.releaseAll();
        producer.close(Duration.ofSeconds(10));
        store.close();
        admin.close();
    }

    /**
     * A real producer (acks=all, as the bridge's) that records each send and the host time it was made, and, while
     * {@code holding}, keeps each acknowledgement the broker gives from the sender until the test releases it: the
     * sender then sees a window of sends in flight for as long as the test needs.
     */
    static final class RecordingProducer extends KafkaProducer<byte[], byte[]> {

        private final List<ProducerRecord<byte[], byte[]>> history = new CopyOnWriteArrayList<>();
        final List<Long> sentAtMillis = new CopyOnWriteArrayList<>();
        private final AtomicInteger acknowledged = new AtomicInteger();
        private final Deque<Runnable> held = new ArrayDeque<>();
        private boolean holding;

        RecordingProducer(String bootstrap, boolean holding) {
            super(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ProducerConfig.ACKS_CONFIG,
                            "all",
                            ProducerConfig.LINGER_MS_CONFIG,
                            0),
                    new ByteArraySerializer(),
                    new ByteArraySerializer());
            this.holding = holding;
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            sentAtMillis.add(System.currentTimeMillis());
            history.add(record);
            return super.send(
                    record,
                    (metadata, error) -> acknowledge(() -> {
                        acknowledged.incrementAndGet();
                        if (callback != null) {
                            callback.onCompletion(metadata, error);
                        }
                    }));
        }

        /** The records sent so far, in the order they were sent. */
        List<ProducerRecord<byte[], byte[]>> history() {
            return List.copyOf(history);
        }

        /** How many of the broker's answers (acknowledgements or failures) the pump has been given. */
        int acknowledged() {
            return acknowledged.get();
        }

        private void acknowledge(Runnable completion) {
            synchronized (held) {
                if (holding) {
                    held.addLast(completion);
                    held.notifyAll();
                    return;
                }
            }
            completion.run();
        }

        /** Releases the oldest held acknowledgement, waiting up to 10 s for the broker to give one. */
        boolean completeNext() throws InterruptedException {
            Runnable next;
            synchronized (held) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (held.isEmpty() && System.nanoTime() < deadline) {
                    held.wait(100);
                }
                next = held.pollFirst();
            }
            if (next != null) {
                next.run();
            }
            return next != null;
        }

        /** Stops holding: releases every held acknowledgement, and passes later ones on as they come. */
        void releaseAll() {
            List<Runnable> release;
            synchronized (held) {
                holding = false;
                release = List.copyOf(held);
                held.clear();
            }
            release.forEach(Runnable::run);
        }
    }
}
