package io.delaybridge.bench;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.schemas.IntakeOrigin;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntToLongFunction;

/**
 * "limits": what the machine gives the bridge, without it. The producer to one topic with the bridge's producer
 * settings, and the store's own schedule and claim + ack paths driven directly on one shard, alone and beside a
 * backlog of messages not due.
 */
final class LimitsScenario implements Scenario {

    private final BenchRun run;

    LimitsScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        String topic = run.createTopics("limit", 1)[0];
        int n = run.options.records;
        try (Load load = new Load(run.bootstrap)) {
            long start = System.nanoTime();
            long now = System.currentTimeMillis();
            long first = run.nextSeq(n);
            for (int i = 0; i < n; i++) {
                load.send(topic, null, "nowhere", now, first + i, 0);
            }
            load.flush();
            run.put(
                    "limit: producer to one topic (" + BenchRun.INTAKE_PARTITIONS + " partitions, bridge producer "
                            + "settings)",
                    "%,.0f records/s (%,d records of %d bytes)",
                    n / BenchRun.seconds(start),
                    n,
                    Load.VALUE_BYTES);
        }
        claimPath(run.options.claimRecords, 0);
        // the same again beside messages that are not due: what a backlog costs the claims
        claimPath(run.options.claimRecords, run.options.claimBacklog);
    }

    /**
     * The store's own write and claim paths, driven directly, on one shard: what Redis gives the bridge. With a
     * backlog, that many messages due in 6 hours are stored in the shard first, and stay there.
     */
    private void claimPath(int n, int backlog) throws Exception {
        String topic = "probe" + run.runId + "b" + backlog;
        String keyPrefix = "bp" + run.runId + "b" + backlog;
        String beside = backlog == 0 ? "" : String.format(", beside %,d not due", backlog);
        try {
            claimPath(n, backlog, topic, keyPrefix, beside);
        } finally {
            StoreLayouts.deleteKeys(run.redis(), keyPrefix + ":*");
        }
    }

    private void claimPath(int n, int backlog, String topic, String keyPrefix, String beside) throws Exception {
        try (RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(run.redisUri(), topic, 1)
                .withKeyPrefix(keyPrefix)
                .withCommandTimeout(Duration.ofSeconds(60)))) {
            byte[] envelope = new byte[Load.VALUE_BYTES + 40];
            new Random(1).nextBytes(envelope);
            long due = store.now();
            long later = due + TimeUnit.HOURS.toMillis(6);
            schedule(store, topic, n, n + backlog, i -> later, envelope);
            long start = System.nanoTime();
            schedule(store, topic, 0, n, i -> due, envelope);
            run.put(
                    "limit: store schedule path (schedule.lua, batches of 1,000, 4 in flight, fsync always" + beside
                            + ")",
                    "%,.0f records/s",
                    n / BenchRun.seconds(start));
            long epoch = store.acquire(0);
            int batch = run.options.batch;
            CpuMeter cpu = new CpuMeter().process("redis", run.redisPid()).start();
            Map<String, Long> commandsBefore = run.commandMicros();
            start = System.nanoTime();
            long claimed = 0;
            while (true) {
                ClaimBatch claim = store.claim(0, epoch, batch, 30_000);
                if (claim.messages().isEmpty()) {
                    break;
                }
                List<MessageRef> refs = new ArrayList<>(claim.messages().size());
                for (ClaimedMessage m : claim.messages()) {
                    refs.add(m.ref());
                }
                store.ack(0, epoch, refs);
                claimed += refs.size();
            }
            double rate = claimed / BenchRun.seconds(start);
            run.put(
                    "limit: store claim + ack path (claim.lua + ack.lua, batches of " + batch + ", one caller" + beside
                            + ")",
                    "%,.0f records/s (%,d records); %s; %s",
                    rate,
                    claimed,
                    cpu.perRecord(claimed),
                    BenchRun.commandCost(commandsBefore, run.commandMicros(), claimed));
        }
    }

    /** Stores the messages of offsets from..to (default ids, shard 0), 1,000 a batch, 4 batches in flight. */
    static void schedule(
            RedisDelayStore store, String topic, int from, int to, IntToLongFunction dueAt, byte[] envelope)
            throws Exception {
        Deque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
        for (int first = from; first < to; first += 1_000) {
            List<WriteOp> ops = new ArrayList<>(1_000);
            for (int i = first; i < Math.min(to, first + 1_000); i++) {
                ops.add(new WriteOp.Schedule(
                        topic + "-0-" + i, dueAt.applyAsLong(i), new IntakeOrigin(topic, 0, i), envelope));
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
}
