package io.delaybridge.bridge.store.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.testkit.RedisServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Redis store does about Redis' memory: an evicting Redis is refused at start-up, and a full one refuses new
 * messages while a new owner can still take its shards over and drain them. Each on its own server.
 */
class RedisMemoryIT {

    @TempDir
    Path dir;

    @Test
    void refusesARedisThatEvictsKeys() {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of("--maxmemory-policy", "allkeys-lru"))) {
            StoreConfigurationException e = assertThrows(
                    StoreConfigurationException.class,
                    () -> RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 2)));
            assertTrue(e.getMessage().contains("maxmemory-policy allkeys-lru"), e.getMessage());
            assertTrue(e.getMessage().contains("noeviction"), e.getMessage());
            assertTrue(e.getMessage().contains(redis.uri()), e.getMessage());
        }
    }

    @Test
    void aFullRedisRefusesNewMessagesAsUnavailableWhileThePumpDrainsIt() throws Exception {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of("--maxmemory", "3mb"));
                RedisDelayStore store = RedisDelayStore.connect(RedisStoreFailureIT.options(redis, 1))) {
            long now = store.now();
            byte[] envelope = new byte[4096];
            Throwable failure = null;
            long offset = 0;
            for (int batch = 0; batch < 500 && failure == null; batch++) {
                List<WriteOp> ops = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    ops.add(RedisStoreFailureIT.record(0, offset++, now - 1, envelope));
                }
                try {
                    store.write(ops).get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failure = e.getCause();
                }
            }
            assertInstanceOf(StoreUnavailableException.class, failure);
            assertTrue(failure.getMessage().contains("out of memory"), failure.getMessage());
            long pendingAtOom = store.stats(0).pending();
            assertTrue(pendingAtOom > 100, "stored " + pendingAtOom + " before memory ran out");

            // a new owner can take the shard over, record itself as a writer of its transactions (exactly once),
            // claim, retry, reclaim and ack on a full Redis, and so free it
            long epoch = store.acquire(0);
            store.transactionWriters().register(0, "earlier").get(30, TimeUnit.SECONDS);
            assertEquals(
                    List.of("earlier"),
                    store.transactionWriters().register(0, "new-owner").get(30, TimeUnit.SECONDS),
                    "recorded on a full Redis");
            ClaimBatch batch = store.claim(0, epoch, 200, 60_000);
            assertEquals(200, batch.messages().size());
            assertTrue(store.retry(0, epoch, batch.messages().get(0).ref(), now - 1));
            ClaimedMessage shortLease = store.claim(0, epoch, 1, 1).messages().get(0);
            await().atMost(RedisStoreFailureIT.DEADLINE).until(() -> store.reclaim(0, epoch, 10) == 1);
            assertEquals(
                    List.of(WriteResult.CANCELLED),
                    store.write(List.of(new WriteOp.Cancel(shortLease.ref().id())))
                            .get(30, TimeUnit.SECONDS));
            assertEquals(
                    199,
                    store.ack(
                            0,
                            epoch,
                            batch.messages().stream()
                                    .skip(1)
                                    .map(ClaimedMessage::ref)
                                    .toList()));
            assertEquals(
                    List.of(WriteResult.STORED),
                    store.write(List.of(RedisStoreFailureIT.record(0, offset, now - 1, envelope)))
                            .get(30, TimeUnit.SECONDS));
        }
    }
}
