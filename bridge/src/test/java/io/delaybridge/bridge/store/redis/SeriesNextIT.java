package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.ShardStats;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code series_next.lua} on a real Redis: the call that settles a series' delivered occurrence stores the next one
 * (value and due time) or deletes an ended series, leaves a member replaced or cancelled meanwhile alone, and is fenced
 * by the shard's epoch. Due times are relative to Redis' clock; no test waits.
 */
@ExtendWith(RealServersExtension.class)
class SeriesNextIT {

    private static final String TOPIC = "delay-intake";
    private static final int SHARDS = 4;
    private static final int SHARD = 1;
    private static final long LEASE = 30_000;

    private final TestServers servers;
    private final ShardRouter router = new ShardRouter(TOPIC, SHARDS);
    private RedisDelayStore store;
    private String id;

    SeriesNextIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void openStore() {
        store = RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("series")));
        for (int i = 0; ; i++) {
            if (router.shardOf("series-" + i) == SHARD) {
                id = "series-" + i;
                break;
            }
        }
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void settlingAnOccurrenceStoresTheNextInTheSameCall() throws Exception {
        long now = store.now();
        write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/1"), utf8("first"), 1L));
        long epoch = store.acquire(SHARD);
        ClaimedMessage claimed = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        assertTrue(store.retry(SHARD, epoch, claimed.ref(), now - 10), "a failed attempt counted");
        claimed = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        assertEquals(2, claimed.attempt());

        assertEquals(1, settle(epoch, new SeriesStep(claimed.ref(), now - 5, next(claimed, "second"))));
        assertEquals(new ShardStats(SHARD, 1, 0, now - 5), store.stats(SHARD), "the next one pending, none in flight");
        assertEquals(
                List.of(WriteResult.DUPLICATE),
                write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/1"), utf8("first"), 1L)),
                "the series' record read again (a restart) does not start it over");

        ClaimedMessage second = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        assertEquals("second", body(second));
        assertEquals(now - 5, second.dueAt());
        assertEquals(1, second.attempt(), "the next occurrence starts with no attempt counted");

        assertEquals(1, settle(epoch, new SeriesStep(second.ref(), SeriesStep.OVER, null)));
        assertEquals(new ShardStats(SHARD, 0, 0, -1), store.stats(SHARD), "an ended series is deleted");
    }

    @Test
    void aSeriesReplacedOrCancelledWhileItsOccurrenceIsInFlightIsLeftAlone() throws Exception {
        long now = store.now();
        write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/1"), utf8("old"), 1L));
        long epoch = store.acquire(SHARD);
        ClaimedMessage old = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        assertEquals(
                List.of(WriteResult.REPLACED),
                write(new WriteOp.Schedule(id, now + 60_000, IntakeOrigin.parse(TOPIC + "/2/5"), utf8("new"), 2L)));

        assertEquals(0, settle(epoch, new SeriesStep(old.ref(), now - 1, next(old, "old-next"))));
        assertEquals(new ShardStats(SHARD, 1, 0, now + 60_000), store.stats(SHARD), "the replacement stands");

        assertEquals(List.of(WriteResult.CANCELLED), write(new WriteOp.Cancel(id, 3L, 0L)));
        write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/9"), utf8("again"), 4L));
        ClaimedMessage again = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        write(new WriteOp.Cancel(id, 5L, 0L));
        assertEquals(0, settle(epoch, new SeriesStep(again.ref(), now - 1, next(again, "after-cancel"))));
        ClaimBatch nothing = store.claim(SHARD, epoch, 10, LEASE);
        assertEquals(List.of(), nothing.messages(), "a cancel ends the series");
    }

    @Test
    void anOccurrenceWhoseSettleNeverCameIsDeliveredAgainThenTheSeriesGoesOn() throws Exception {
        long now = store.now();
        write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/1"), utf8("third"), 1L));
        long epoch = store.acquire(SHARD);
        store.claim(SHARD, epoch, 10, LEASE); // sent, then the bridge died before the settle
        assertEquals(1, store.reclaimAll(SHARD, epoch, 10), "its lease returns it (here at once)");

        ClaimedMessage again = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        assertEquals("third", body(again), "the same occurrence again (at least once), not its next one");
        assertEquals(1, settle(epoch, new SeriesStep(again.ref(), now + 60_000, next(again, "fourth"))));
        assertEquals(new ShardStats(SHARD, 1, 0, now + 60_000), store.stats(SHARD), "and the series goes on");
    }

    @Test
    void aStaleEpochSettlesNothing() throws Exception {
        long now = store.now();
        write(new WriteOp.Schedule(id, now - 10, IntakeOrigin.parse(TOPIC + "/0/1"), utf8("x"), 1L));
        long epoch = store.acquire(SHARD);
        ClaimedMessage claimed = store.claim(SHARD, epoch, 10, LEASE).messages().get(0);
        store.acquire(SHARD); // another owner
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> settle(epoch, new SeriesStep(claimed.ref(), now + 1_000, next(claimed, "y"))));
        assertInstanceOf(StoreFencedException.class, e.getCause());
    }

    private int settle(long epoch, SeriesStep step) throws Exception {
        return store.settleSeriesAsync(SHARD, epoch, List.of(step)).get(30, TimeUnit.SECONDS);
    }

    private List<WriteResult> write(WriteOp op) {
        try {
            return store.write(List.of(op)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    /** The claimed value's origin header followed by {@code body}: what the pump stores for the next occurrence. */
    private static byte[] next(ClaimedMessage claimed, String body) {
        byte[] head = Arrays.copyOf(claimed.value(), claimed.envelopeFrom());
        byte[] tail = utf8(body);
        byte[] value = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, value, head.length, tail.length);
        return value;
    }

    private static String body(ClaimedMessage message) {
        return new String(message.envelope(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
