package io.delaybridge.bridge.thaw;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.intake.IntakePacing;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.intake.RecordRules;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.bridge.store.redis.FarAppend;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a thaw IT stands on: an intake topic of two partitions and a two-shard store on the real broker and Redis, a
 * producer, the far index ({@link FarAppend} puts entries in as the schedule path writes them), and the store's far
 * tier seen through {@link Recording}, which notes each thaw call and what was hot when an hour went.
 */
final class ThawRig implements AutoCloseable {

    static final long HOUR = FarEntry.HOUR_MILLIS;

    final String intake;
    final String target;
    final String deadletter;
    final TestServers servers;
    final Admin admin;
    final Producer<byte[], byte[]> producer;
    final RedisDelayStore store;
    final Recording far;
    final MetricRegistry metrics = new MetricRegistry();
    final ThawMetrics thawMetrics;
    /** What the loop is told the pump holds: shard -> epoch. */
    final Map<Integer, Long> epochs = new ConcurrentHashMap<>();

    ThawRig(TestServers servers, String name) throws Exception {
        this.servers = servers;
        intake = servers.unique(name);
        target = intake + "-out";
        deadletter = intake + "-dlq";
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
        admin.createTopics(List.of(
                        new NewTopic(intake, Optional.of(2), Optional.empty()),
                        new NewTopic(deadletter, Optional.of(1), Optional.empty())))
                .all()
                .get(30, TimeUnit.SECONDS);
        producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        servers.kafkaBootstrap(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), intake, 2).withKeyPrefix(intake));
        far = new Recording(store);
        thawMetrics = new ThawMetrics(metrics, new RedisClock(Time.SYSTEM, store::now));
    }

    /** Intake settings as the bridge's: a year's longest delay; targets matching {@code allowed} (empty: any). */
    IntakeSettings settings(List<String> allowed) {
        return new IntakeSettings(
                new RecordRules(
                        intake,
                        deadletter,
                        Duration.ofDays(365).toMillis(),
                        1 << 20,
                        allowed,
                        Duration.ofHours(1).toMillis()),
                new IntakePacing(
                        Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofSeconds(1)));
    }

    /** A loop over {@link #far} with {@code maxRecords} a thaw call, reading with the bridge's offset reader. */
    ThawLoop loop(IntakeSettings settings, long windowMillis, int maxRecords) {
        KafkaFactory kafka = new KafkaFactory();
        kafka.setBootstrapServers(servers.kafkaBootstrap());
        kafka.setGroupId(intake);
        Properties reader = kafka.offsetReaderProperties("thaw");
        return new ThawLoop(
                new ThawSource(far, store::now, () -> Map.copyOf(epochs)),
                () -> new OffsetReader(reader, intake, Duration.ofSeconds(10), Time.SYSTEM),
                settings.log(),
                new ThawOutput(producer, new DeadletterMeters(metrics), thawMetrics),
                // no pacing: the tests thaw hours ahead of their start and wait for them
                new ThawPace(windowMillis, maxRecords, 0),
                Time.SYSTEM);
    }

    /** Produces a schedule for {@link #target} due at {@code dueAt} to intake {@code partition}; returns its offset. */
    long produce(int partition, long dueAt, String id) throws Exception {
        return send(partition, dueAt, id).offset();
    }

    private RecordMetadata send(int partition, long dueAt, String id) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DelayHeaders.TARGET, target.getBytes(StandardCharsets.UTF_8));
        headers.add(DelayHeaders.UNTIL, Long.toString(dueAt).getBytes(StandardCharsets.UTF_8));
        if (id != null) {
            headers.add(DelayHeaders.ID, id.getBytes(StandardCharsets.UTF_8));
        }
        return producer.send(new ProducerRecord<>(
                        intake,
                        partition,
                        null,
                        ("key-" + dueAt).getBytes(StandardCharsets.UTF_8),
                        ("value-" + dueAt).getBytes(StandardCharsets.UTF_8),
                        headers))
                .get(30, TimeUnit.SECONDS);
    }

    /**
     * Produces a schedule as {@link #produce} does and writes it to the far tier as the intake's schedule path does
     * (its entry, and an explicit id's far version, in the shard the store routes it to); returns its offset.
     */
    long produceFar(int partition, long dueAt, String id) throws Exception {
        RecordMetadata sent = send(partition, dueAt, id);
        String storedId = id != null ? id : IntakeParser.defaultId(intake, partition, sent.offset());
        WriteOp.Schedule far = new WriteOp.Schedule(
                storedId, dueAt, new IntakeOrigin(intake, partition, sent.offset()), null, sent.timestamp(), true);
        List<WriteResult> written = store.write(List.of(far)).get(10, TimeUnit.SECONDS);
        if (written.get(0) != WriteResult.STORED) {
            throw new AssertionError("far write of " + storedId + ": " + written);
        }
        return sent.offset();
    }

    /** Waits until {@code condition} holds, failing after {@code seconds}. */
    static void await(String what, long seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Runs {@code loop} until shard {@code shard} has no far hour left (30 s at most), then stops it. */
    void thawUntilGone(ThawLoop loop, int shard) throws InterruptedException {
        loop.start();
        try {
            await(
                    "the hours of shard " + shard + " thawed",
                    30,
                    () -> store.far().farHours(shard, Long.MAX_VALUE).isEmpty());
        } finally {
            loop.stop();
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        store.close();
        admin.close();
    }

    /**
     * The store's far tier, noting per shard how many records each thaw call stored, how many reads were made, and at
     * each removal of an hour how many records of the shard had been stored hot by then.
     */
    static final class Recording implements FarStore {

        private final RedisDelayStore store;
        private final FarStore real;
        final Map<Integer, List<Integer>> slices = new ConcurrentHashMap<>();
        final Map<Integer, AtomicInteger> stored = new ConcurrentHashMap<>();
        final Map<Integer, AtomicInteger> reads = new ConcurrentHashMap<>();
        final Map<Integer, List<Integer>> storedAtRemoval = new ConcurrentHashMap<>();
        final AtomicInteger cycles = new AtomicInteger();
        /**
         * From the owner's thaw call of this number on (0: never), calls fail: that call after it stored its records
         * (as a thaw whose owner halts after a slice), the later ones without storing anything.
         */
        final AtomicInteger failFromCall = new AtomicInteger();
        /** Whether the call {@link #failFromCall} names failed after it stored. */
        final AtomicBoolean failedAfterStoring = new AtomicBoolean();

        private final AtomicInteger calls = new AtomicInteger();

        Recording(RedisDelayStore store) {
            this.store = store;
            this.real = store.far();
        }

        /** Bare entries in the index, as the schedule path writes them with their records. */
        long append(int shard, List<FarEntry> entries) {
            return FarAppend.append(store, shard, entries);
        }

        int stored(int shard) {
            return stored.computeIfAbsent(shard, s -> new AtomicInteger()).get();
        }

        int reads(int shard) {
            return reads.computeIfAbsent(shard, s -> new AtomicInteger()).get();
        }

        @Override
        public List<Long> farHours(int shard, long untilMillis) {
            if (shard == 1) {
                cycles.incrementAndGet(); // the loop visits its shards in order: shard 1 once a cycle here
            }
            return real.farHours(shard, untilMillis);
        }

        @Override
        public FarHour readFar(int shard, long hour, int from) {
            reads.computeIfAbsent(shard, s -> new AtomicInteger()).incrementAndGet();
            return real.readFar(shard, hour, from);
        }

        @Override
        public CompletableFuture<List<WriteResult>> thaw(int shard, long epoch, List<WriteOp.Schedule> records) {
            return real.thaw(shard, epoch, records).thenApply(results -> {
                slices.computeIfAbsent(shard, s -> new CopyOnWriteArrayList<>()).add(records.size());
                stored.computeIfAbsent(shard, s -> new AtomicInteger()).addAndGet(records.size());
                return results;
            });
        }

        @Override
        public CompletableFuture<List<WriteResult>> thaw(
                int shard, long epoch, long hour, List<WriteOp.Schedule> records, List<List<FarHour.Slot>> slots) {
            int call = calls.incrementAndGet();
            int failFrom = failFromCall.get();
            if (failFrom > 0 && call > failFrom) {
                return CompletableFuture.failedFuture(
                        new StoreUnavailableException("thaw call " + call + " refused", null));
            }
            return real.thaw(shard, epoch, hour, records, slots).thenApply(results -> {
                if (call == failFrom) {
                    failedAfterStoring.set(true);
                    throw new StoreUnavailableException("thaw call " + call + " failed after it stored", null);
                }
                slices.computeIfAbsent(shard, s -> new CopyOnWriteArrayList<>()).add(records.size());
                stored.computeIfAbsent(shard, s -> new AtomicInteger()).addAndGet(records.size());
                return results;
            });
        }

        @Override
        public long farThawed(int shard, long epoch, long hour, int length, long forgetBefore) {
            storedAtRemoval
                    .computeIfAbsent(shard, s -> new CopyOnWriteArrayList<>())
                    .add(stored(shard));
            return real.farThawed(shard, epoch, hour, length, forgetBefore);
        }

        @Override
        public Optional<FarVersion> farVersion(String id) {
            return real.farVersion(id);
        }

        @Override
        public boolean farHolds(int shard, FarEntry entry) {
            return real.farHolds(shard, entry);
        }

        @Override
        public Map<Long, Long> farCountsByHour(int shard) {
            return real.farCountsByHour(shard);
        }

        @Override
        public long farCount(int shard) {
            return real.farCount(shard);
        }
    }
}
