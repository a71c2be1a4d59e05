package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStoreContractIT;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store contract with every schedule passing through the far tier (a hot window of 0): each schedule the contract
 * writes goes far (its index entry and, for an explicit id, its far version), the fixture keeps its record as the
 * intake's log would, and the thaw of the shard's owner then stores it hot from that record, before the contract
 * looks. Every assertion of the contract must hold unchanged: ids, versions, replacements, cancels, duplicates,
 * claims. What happens while a record waits far is {@link FarTierIT}'s.
 */
@ExtendWith(RealServersExtension.class)
class FarTierContractIT extends DelayStoreContractIT {

    private final TestServers servers;
    /** The intake's log as the far tier needs it: origin -> the record's schedule. */
    private final Map<IntakeOrigin, WriteOp.Schedule> log = new HashMap<>();

    FarTierContractIT(TestServers servers) {
        this.servers = servers;
    }

    @Override
    protected DelayStore newStore() {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), TOPIC, SHARDS).withKeyPrefix(servers.unique("far-contract")));
    }

    @Override
    public List<WriteResult> write(WriteOp... ops) {
        List<WriteOp> far = new ArrayList<>(ops.length);
        for (WriteOp op : ops) {
            if (op instanceof WriteOp.Schedule s) {
                log.put(s.origin(), s);
                far.add(new WriteOp.Schedule(s.id(), s.dueAt(), s.origin(), null, s.timestamp(), true));
            } else {
                far.add(op);
            }
        }
        try {
            List<WriteResult> results = store.write(far).get(10, TimeUnit.SECONDS);
            thawEverything();
            return results;
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    /**
     * As the contract's, but for the cancel of a default id whose record waits far in the same batch: the store holds
     * no state per default id in the far tier, so the cancel answers NOT_FOUND; it takes effect all the same (the
     * thaw drops the record).
     */
    @Override
    @Test
    public void aBatchAnswersInInputOrderAcrossShards() {
        long now = store.now();
        List<WriteResult> results = write(
                intakeRecord(0, 1, now + 60_000, "a"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel(TOPIC + "-0-1"),
                intakeRecord(1, 1, now + 60_000, "b"),
                new WriteOp.Cancel("nothing"),
                schedule("order-1", now + 60_000, TOPIC + "/2/5", "c"),
                schedule("order-1", now + 60_000, TOPIC + "/3/6", "d"));
        assertEquals(
                List.of(
                        WriteResult.STORED,
                        WriteResult.STORED,
                        WriteResult.NOT_FOUND,
                        WriteResult.DUPLICATE,
                        WriteResult.NOT_FOUND,
                        WriteResult.STORED,
                        WriteResult.REPLACED),
                results);
        long pending = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            pending += store.stats(shard).pending();
        }
        assertEquals(2, pending, "b and order-1: the cancelled far record was dropped by its thaw");
    }

    /** What the thaw loop does ahead of every hour, done at once for every hour. */
    private void thawEverything() {
        RedisDelayStore redis = (RedisDelayStore) store;
        for (int shard = 0; shard < SHARDS; shard++) {
            for (long hour : redis.far().farHours(shard, Long.MAX_VALUE)) {
                FarHour read = redis.far().readFar(shard, hour, 0);
                List<WriteOp.Schedule> records = new ArrayList<>();
                List<List<FarHour.Slot>> slots = new ArrayList<>();
                for (FarHour.Slot slot : read.slots()) {
                    FarEntry entry = slot.entry();
                    WriteOp.Schedule s = log.get(new IntakeOrigin(TOPIC, entry.partition(), entry.offset()));
                    records.add(new WriteOp.Schedule(s.id(), s.dueAt(), s.origin(), s.envelope(), s.timestamp()));
                    slots.add(List.of(slot));
                }
                long epoch = epochOf(redis, shard);
                redis.far().thaw(shard, epoch, hour, records, slots).join();
                redis.far().farThawed(shard, epoch, hour, read.length(), 0);
            }
        }
    }

    /** The shard's current owner's epoch (the thaw runs as the owner), taking the shard if nobody owns it yet. */
    private static long epochOf(RedisDelayStore redis, int shard) {
        byte[] epoch = redis.access()
                .await(redis.access().commands().get(redis.keys().shard(shard).epoch()), "epoch");
        return epoch == null ? redis.acquire(shard) : Long.parseLong(new String(epoch));
    }
}
