package io.delaybridge.bridge.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.schemas.IntakeOrigin;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the parts of the store contract share: the store under test, fresh and empty for intake topic {@value #TOPIC}
 * with {@value #SHARDS} shards, and the helpers that write to it and read what it gave back.
 */
public interface StoreContract {

    String TOPIC = "delay-intake";
    int SHARDS = 4;
    long LEASE = 30_000;
    Duration DEADLINE = Duration.ofSeconds(10);

    DelayStore store();

    /** The router of {@link #TOPIC} over {@link #SHARDS} shards. */
    ShardRouter router();

    default byte[] envelope(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    default WriteOp.Schedule schedule(String id, long dueAt, String origin, String body) {
        return new WriteOp.Schedule(id, dueAt, IntakeOrigin.parse(origin), envelope(body));
    }

    /** A default-form id and its own origin, on intake partition {@code partition}. */
    default WriteOp.Schedule intakeRecord(int partition, long offset, long dueAt, String body) {
        return schedule(TOPIC + "-" + partition + "-" + offset, dueAt, TOPIC + "/" + partition + "/" + offset, body);
    }

    default List<WriteResult> write(WriteOp... ops) {
        try {
            return store().write(List.of(ops)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write failed", e);
        }
    }

    default WriteResult writeOne(WriteOp op) {
        return write(op).get(0);
    }

    /** An explicit id that the router places in {@code shard}. */
    default String explicitIdIn(int shard, String base) {
        for (int i = 0; ; i++) {
            String id = base + "-" + i;
            if (router().shardOf(id) == shard) {
                return id;
            }
        }
    }

    default List<String> ids(ClaimBatch batch) {
        return batch.messages().stream().map(m -> m.ref().id()).toList();
    }

    default String body(ClaimedMessage message) {
        return new String(message.envelope(), StandardCharsets.UTF_8);
    }

    /** A schedule of a record with a timestamp (record time), which orders versions of an id. */
    default WriteOp.Schedule schedule(String id, long dueAt, String origin, String body, long timestamp) {
        return new WriteOp.Schedule(id, dueAt, IntakeOrigin.parse(origin), envelope(body), timestamp);
    }

    /** The body of the one pending version of {@code id}, claimed to see it. */
    default String pendingBody(String id) {
        int shard = router().shardOf(id);
        List<ClaimedMessage> messages =
                store().claim(shard, store().acquire(shard), 10, LEASE).messages();
        assertEquals(1, messages.size(), "pending versions of " + id);
        return body(messages.get(0));
    }
}
