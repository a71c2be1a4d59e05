package io.delaybridge.checker;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The fault {@code delete-far}: advances one intake partition's log start with {@code Admin.deleteRecords} past far
 * records that still wait ({@link DeletionPoint}), and remembers where, for the check ({@link FarLossCheck}).
 */
final class FarDeleter {

    /** Beyond the hot window: the thaw runs once a second, so a record due later than this is surely read far. */
    static final long FAR_MARGIN_MILLIS = 2_000;
    /** How long the fault waits for a moment when the far index holds entries below a possible deletion point. */
    private static final long WAIT_FOR_FAR_MILLIS = 30_000;

    private static final long ADMIN_TIMEOUT_SECONDS = 30;

    /** One deletion: {@code partition}'s log start moved from {@code logStart} to {@code deletedBefore}. */
    record Deletion(int partition, long logStart, long deletedBefore, int farInPlan, int farInIndexBefore, long at) {

        String describe() {
            return "deleteRecords intake partition " + partition + " offsets " + logStart + "-" + (deletedBefore - 1)
                    + " (the far index held " + farInIndexBefore + " of them, " + farInPlan
                    + " of the plan's records there were due beyond the hot window)";
        }
    }

    private final String bootstrap;
    private final DeliveryLedger ledger;
    private final Supplier<List<String>> redisUris;
    private final int partitions;
    private final long hotWindowMillis;
    private final List<Deletion> deletions = new ArrayList<>();

    FarDeleter(
            String bootstrap,
            DeliveryLedger ledger,
            Supplier<List<String>> redisUris,
            int partitions,
            long hotWindowMillis) {
        this.bootstrap = bootstrap;
        this.ledger = ledger;
        this.redisUris = redisUris;
        this.partitions = partitions;
        this.hotWindowMillis = hotWindowMillis;
    }

    /** Deletes once, waiting up to 30 s for far entries below a point; says what it did. */
    String delete() throws InterruptedException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            long deadline = System.currentTimeMillis() + WAIT_FOR_FAR_MILLIS;
            Optional<DeletionPoint.Candidate> choice;
            while (true) {
                choice = DeletionPoint.choose(candidates(admin));
                if (choice.isPresent() && choice.get().farInIndex() > 0 || System.currentTimeMillis() > deadline) {
                    break;
                }
                Thread.sleep(100);
            }
            if (choice.isEmpty()) {
                return "nothing to delete: no intake partition has acknowledged, stored records due beyond the hot"
                        + " window below its committed offset";
            }
            DeletionPoint.Candidate c = choice.get();
            TopicPartition partition = new TopicPartition(Campaign.INTAKE, c.partition());
            long low = admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(c.deleteBefore())))
                    .lowWatermarks()
                    .get(partition)
                    .get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .lowWatermark();
            Deletion deletion = new Deletion(
                    c.partition(), c.logStart(), low, c.farInPlan(), c.farInIndex(), System.currentTimeMillis());
            synchronized (this) {
                deletions.add(deletion);
            }
            return deletion.describe();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("delete-far: the broker did not answer: " + e, e);
        }
    }

    private List<DeletionPoint.Candidate> candidates(Admin admin)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            earliest.put(new TopicPartition(Campaign.INTAKE, p), OffsetSpec.earliest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts =
                admin.listOffsets(earliest).all().get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(Campaign.GROUP)
                .partitionsToOffsetAndMetadata()
                .get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<Integer, List<DeletionPoint.Acked>> acked = new HashMap<>();
        for (int n = 0; n < ledger.records(); n++) {
            if (ledger.isAcknowledged(n)) {
                acked.computeIfAbsent(ledger.intakePartition(n), p -> new ArrayList<>())
                        .add(new DeletionPoint.Acked(ledger.intakeOffset(n), ledger.dueAt(n)));
            }
        }
        Map<Integer, long[]> far = farIndexOffsets(redisUris.get());
        long horizon = System.currentTimeMillis() + hotWindowMillis + FAR_MARGIN_MILLIS;
        List<DeletionPoint.Candidate> candidates = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(Campaign.INTAKE, p);
            OffsetAndMetadata at = committed.get(tp);
            if (at == null) {
                continue;
            }
            candidates.add(DeletionPoint.candidate(
                    p,
                    starts.get(tp).offset(),
                    at.offset(),
                    acked.getOrDefault(p, List.of()),
                    far.getOrDefault(p, new long[0]),
                    horizon));
        }
        return candidates;
    }

    /** Per intake partition, the offsets the far index holds now (12-byte entries in each shard's hour strings). */
    static Map<Integer, long[]> farIndexOffsets(List<String> redisUris) {
        Map<Integer, List<Long>> offsets = new HashMap<>();
        for (String uri : redisUris) {
            RedisClient client = RedisClient.create(uri);
            try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                RedisCommands<byte[], byte[]> redis = connection.sync();
                String pattern = Campaign.KEY_PREFIX + ":{" + Campaign.INTAKE + ":*}:far:*";
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    KeyScanCursor<byte[]> page =
                            redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                    for (byte[] key : page.getKeys()) {
                        byte[] entries = redis.get(key);
                        decode(entries, offsets);
                    }
                    cursor = page;
                } while (!cursor.isFinished());
            } finally {
                client.shutdown();
            }
        }
        Map<Integer, long[]> result = new HashMap<>();
        offsets.forEach((p, list) ->
                result.put(p, list.stream().mapToLong(Long::longValue).toArray()));
        return result;
    }

    /**
     * Adds the (partition, offset) of each 12-byte entry (partition 2 B, offset 6 B, ms within the hour 4 B) not marked
     * thawed (ms within the hour ff ff ff ff).
     */
    static void decode(byte[] entries, Map<Integer, List<Long>> offsets) {
        if (entries == null) {
            return;
        }
        ByteBuffer buffer = ByteBuffer.wrap(entries);
        while (buffer.remaining() >= 12) {
            int partition = Short.toUnsignedInt(buffer.getShort());
            long offset =
                    ((long) Short.toUnsignedInt(buffer.getShort()) << 32) | Integer.toUnsignedLong(buffer.getInt());
            if (buffer.getInt() == 0xFFFF_FFFF) {
                continue; // marked thawed: its record is hot, or was delivered
            }
            offsets.computeIfAbsent(partition, p -> new ArrayList<>()).add(offset);
        }
    }

    /** Per partition, the highest offset a deletion reached (exclusive). */
    synchronized Map<Integer, Long> deletedBefore() {
        Map<Integer, Long> before = new HashMap<>();
        deletions.forEach(d -> before.merge(d.partition(), d.deletedBefore(), Math::max));
        return before;
    }

    synchronized List<Deletion> deletions() {
        return List.copyOf(deletions);
    }
}
