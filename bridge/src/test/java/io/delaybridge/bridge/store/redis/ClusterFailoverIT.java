package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RedisCluster;
import io.delaybridge.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master of a real Redis Cluster (three masters, one replica each) killed with SIGKILL under a writing store with
 * {@code waitReplicas: 1}: the replica takes over, the store follows the new slot map (MOVED, topology refresh),
 * loads its scripts where they are missing, waits for a replica on each master it wrote to, and loses nothing it
 * acknowledged.
 */
class ClusterFailoverIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 16;

    @TempDir
    Path dir;

    @Test
    void aKilledMasterLosesNothingAcknowledgedWithWaitReplicasOne() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 1)) {
            RedisStoreOptions options = RedisStoreOptions.of(cluster.uri(), TOPIC, SHARDS)
                    .withWait(1, Duration.ofSeconds(1))
                    .withCommandTimeout(Duration.ofSeconds(2));
            try (RedisDelayStore store = RedisDelayStore.connect(options)) {
                Set<String> acked = ConcurrentHashMap.newKeySet();
                long offset = writeUntil(store, acked, 0, 200, Duration.ofSeconds(30));

                RedisServer victim =
                        cluster.masterOfKey(new String(store.keys().shard(0).due(), StandardCharsets.UTF_8));
                long killedAt = System.nanoTime();
                cluster.kill(victim);
                cluster.awaitFailover(Duration.ofSeconds(30));
                long promotedMillis = (System.nanoTime() - killedAt) / 1_000_000;
                cluster.restart(victim); // back as the replica of the promoted master: WAIT 1 can succeed there
                int failuresBefore = failures;
                long firstAck = System.nanoTime();
                offset = writeUntil(store, acked, offset, 10, Duration.ofSeconds(60));
                long firstAckMillis = (firstAck - killedAt) / 1_000_000 + lastWriteMillis;
                writeUntil(store, acked, offset, 200, Duration.ofSeconds(60));

                MessageAdmin admin = store.messageAdmin();
                List<String> lost = new ArrayList<>();
                for (String id : acked) {
                    if (admin.inspect(id).isEmpty()) {
                        lost.add(id);
                    }
                }
                System.out.printf(
                        "Cluster fail-over (3 masters + 1 replica each), waitReplicas 1: %d writes"
                                + " acknowledged, %d lost; replica promoted %d ms after SIGKILL, writes acknowledged again"
                                + " ~%d ms after SIGKILL, %d batches failed and were retried%n",
                        acked.size(), lost.size(), promotedMillis, firstAckMillis, failures - failuresBefore);
                assertEquals(List.of(), lost, "acknowledged writes lost across the fail-over");
                assertEquals(null, admin.incarnationProblem());

                // shard 0's wake channel moved to the promoted master with its slot: wake-ups still arrive
                java.util.concurrent.CountDownLatch woken = new java.util.concurrent.CountDownLatch(1);
                store.onWake((shard, dueAt) -> {
                    if (shard == 0) {
                        woken.countDown();
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                long n = 0;
                while (woken.getCount() > 0 && System.nanoTime() < deadline) {
                    try {
                        store.write(List.of(new WriteOp.Schedule(
                                        TOPIC + "-0-" + (10_000_000 + n),
                                        store.now() - 60_000 - n,
                                        new IntakeOrigin(TOPIC, 0, (10_000_000 + n)),
                                        new byte[1])))
                                .get(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // retried below
                    }
                    n++;
                    woken.await(500, TimeUnit.MILLISECONDS);
                }
                assertEquals(0, woken.getCount(), "a wake-up of shard 0 from its promoted master");
            }
        }
    }

    private int failures;
    private long lastWriteMillis;

    /** Writes batches of 16 (one per shard) until {@code count} more are acknowledged; failed batches are retried. */
    private long writeUntil(RedisDelayStore store, Set<String> acked, long offset, int count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int target = acked.size() + count;
        long dueAt = System.currentTimeMillis() + 3_600_000;
        long firstTry = System.nanoTime();
        while (acked.size() < target) {
            List<WriteOp> batch = new ArrayList<>();
            for (int shard = 0; shard < SHARDS; shard++, offset++) {
                batch.add(new WriteOp.Schedule(
                        TOPIC + "-" + shard + "-" + offset,
                        dueAt,
                        new IntakeOrigin(TOPIC, shard, offset),
                        ("m" + offset).getBytes(StandardCharsets.UTF_8)));
            }
            while (true) {
                assertTrue(System.nanoTime() < deadline, "writes not acknowledged within " + timeout);
                try {
                    store.write(batch).get(10, TimeUnit.SECONDS);
                    batch.forEach(op -> acked.add(op.id()));
                    break;
                } catch (Exception e) {
                    failures++;
                    Thread.sleep(50);
                }
            }
        }
        lastWriteMillis = (System.nanoTime() - firstTry) / 1_000_000;
        return offset;
    }
}
