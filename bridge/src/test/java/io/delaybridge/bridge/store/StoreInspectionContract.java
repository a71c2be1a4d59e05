package io.delaybridge.bridge.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The store contract's inspections: what the store says of a shard (next due time, counts), its shard count and
 * clock, and where explicit ids live; run by {@link DelayStoreContractIT} against each implementation.
 *
 * <p>Time: due times are taken relative to {@link DelayStore#now()}, the store's clock; waits have deadlines.
 */
public interface StoreInspectionContract extends StoreContract {

    @Test
    default void nextDueAtAndStatsDescribeTheShard() {
        assertEquals(OptionalLong.empty(), store().nextDueAt(1));
        assertEquals(new ShardStats(1, 0, 0, -1), store().stats(1));
        long now = store().now();
        write(
                intakeRecord(1, 1, now + 5_000, "a"),
                intakeRecord(1, 2, now + 3_000, "b"),
                intakeRecord(1, 3, now - 1, "c"));
        assertEquals(OptionalLong.of(now - 1), store().nextDueAt(1));
        store().claim(1, store().acquire(1), 1, LEASE);
        assertEquals(OptionalLong.of(now + 3_000), store().nextDueAt(1));
        assertEquals(new ShardStats(1, 2, 1, now + 3_000), store().stats(1));
        assertEquals(new ShardStats(0, 0, 0, -1), store().stats(0));
    }

    @Test
    default void peekFindsStoredMessagesDueOrInFlightAndNothingOnceAcked() throws Exception {
        long now = store().now();
        String explicit = explicitIdIn(1, "peek");
        write(intakeRecord(1, 7, now - 1, "due"), schedule(explicit, now + 60_000, TOPIC + "/1/8", "later"));
        String due = TOPIC + "-1-7";
        List<ClaimedMessage> found =
                store().peekAsync(1, List.of(due, explicit, TOPIC + "-1-9")).get();
        assertEquals("due", body(found.get(0)));
        assertEquals(due, found.get(0).ref().id());
        assertEquals("later", body(found.get(1)), "due later: stored all the same");
        assertEquals(null, found.get(2), "never stored");
        long epoch = store().acquire(1);
        List<ClaimedMessage> claimed = store().claim(1, epoch, 10, LEASE).messages();
        assertEquals(List.of(due), claimed.stream().map(m -> m.ref().id()).toList());
        assertEquals("due", body(store().peekAsync(1, List.of(due)).get().get(0)), "in flight: still stored");
        store().ack(1, epoch, List.of(claimed.get(0).ref()));
        assertEquals(
                java.util.Arrays.asList((ClaimedMessage) null),
                store().peekAsync(1, List.of(due)).get());
    }

    @Test
    default void shardCountAndClock() {
        assertEquals(SHARDS, store().shardCount());
        long before = System.currentTimeMillis();
        long now = store().now();
        long after = System.currentTimeMillis();
        // the store's clock is the server's; in these tests it runs on this machine
        assertTrue(now >= before - 1_000 && now <= after + 1_000, before + " <= " + now + " <= " + after);
    }

    @Test
    default void explicitIdsLiveInTheShardTheRouterNames() {
        long now = store().now();
        List<String> explicitIds = List.of(
                "order-42", "customer-7", "Bestellung-ü-日本", TOPIC + "-01-5", "other-topic-1-5", TOPIC + "-9-5");
        for (String id : explicitIds) {
            writeOne(schedule(id, now - 1, TOPIC + "/0/1", id));
        }
        for (int shard = 0; shard < SHARDS; shard++) {
            List<String> claimed = ids(store().claim(shard, store().acquire(shard), 100, LEASE));
            for (String id : claimed) {
                assertEquals(router().shardOf(id), shard, id);
            }
            for (String id : explicitIds) {
                assertEquals(router().shardOf(id) == shard, claimed.contains(id), id + " in shard " + shard);
            }
        }
    }
}
