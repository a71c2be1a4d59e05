package io.delaybridge.bench;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.schemas.IntakeOrigin;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redis memory per record waiting in the far tier, written by the real store ({@link RedisDelayStore#write} with far
 * schedules: the intake's own path), as the shipped bridge keeps them: records of {@value #SHARDS} intake partitions,
 * due uniformly over {@value #SPREAD_DAYS} days, with default ids or with explicit ids of 16 characters.
 */
final class FarTierMemory {

    static final int SHARDS = 8;
    static final int SPREAD_DAYS = 7;
    private static final int BATCH = 1_000;

    private final String redisUri;
    private final RedisCommands<String, String> admin;
    private final String prefix;

    FarTierMemory(String redisUri, RedisCommands<String, String> admin, String prefix) {
        this.redisUri = redisUri;
        this.admin = admin;
        this.prefix = prefix;
    }

    /** Bytes of used_memory per far record for {@code n} records; explicit: 16-character ids, else default ids. */
    double measure(int n, boolean explicit) throws Exception {
        String topic = prefix + "-intake";
        String keyPrefix = prefix + (explicit ? "e" : "d");
        RedisInfo.awaitNoAofRewrite(admin, 5, TimeUnit.MINUTES);
        long before = RedisInfo.dataMemory(admin);
        Random random = new Random(explicit ? 17 : 13);
        long now = System.currentTimeMillis();
        long spread = TimeUnit.DAYS.toMillis(SPREAD_DAYS);
        try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(redisUri, topic, SHARDS)
                .withKeyPrefix(keyPrefix)
                .withCommandTimeout(Duration.ofSeconds(60)))) {
            Deque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
            for (int first = 0; first < n; first += BATCH) {
                List<WriteOp> ops = new ArrayList<>(BATCH);
                for (int i = first; i < Math.min(n, first + BATCH); i++) {
                    int partition = i % SHARDS;
                    long offset = i / SHARDS;
                    String id = explicit
                            ? String.format("order-%010d", i) // 16 characters
                            : topic + "-" + partition + "-" + offset;
                    long due = now + TimeUnit.HOURS.toMillis(2) + (long) (random.nextDouble() * spread);
                    ops.add(new WriteOp.Schedule(id, due, new IntakeOrigin(topic, partition, offset), null, now, true));
                }
                inFlight.add(store.write(ops));
                if (inFlight.size() >= 4) {
                    inFlight.poll().get(60, TimeUnit.SECONDS);
                }
            }
            for (CompletableFuture<?> f : inFlight) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        double perRecord = (RedisInfo.dataMemory(admin) - before) / (double) n;
        StoreLayouts.deleteKeys(admin, keyPrefix + ":*");
        return perRecord;
    }
}
