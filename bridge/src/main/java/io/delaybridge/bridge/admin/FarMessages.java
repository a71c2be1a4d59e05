package io.delaybridge.bridge.admin;

import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The operator's side of the far tier (docs/redis-store.md, "The far tier"): finds a far record by id, thaws one ahead
 * of its hour so that the hot operations (fire-now, reschedule) apply to it, and picks the far records of a target
 * for a bulk cancel. Redis holds only a far record's position and due time; its target, key, value and headers are
 * read back from the intake ({@link OffsetReader}: shared by the API's requests, one read at a time, each within a
 * time limit) and translated as the intake translated them.
 */
public final class FarMessages {

    /** The intake could not be read within the time given, or failed. */
    public static final class IntakeReadException extends RuntimeException {
        IntakeReadException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * A record waiting in the far tier.
     *
     * @param timestamp the intake record's timestamp, or null if neither Redis nor the read record told
     * @param envelope  the record as the hot tier would hold it; null if it was not read (or the log lost it)
     * @param schedule  the store operation that stores it hot; null when {@code envelope} is
     */
    public record FarMessage(
            String id,
            int shard,
            long dueAt,
            int partition,
            long offset,
            String origin,
            Long timestamp,
            Envelope envelope,
            WriteOp.Schedule schedule) {}

    private final FarStore far;
    private final MessageAdmin messages;
    private final ShardRouter router;
    private final OffsetReader intake;
    private final Duration readTimeout;
    private final RecordTranslator translator;

    /** @param readTimeout how long one request's read of the intake may take in all */
    public FarMessages(
            FarStore far,
            MessageAdmin messages,
            ShardRouter router,
            OffsetReader intake,
            Duration readTimeout,
            RecordTranslator translator) {
        this.far = far;
        this.messages = messages;
        this.router = router;
        this.intake = intake;
        this.readTimeout = readTimeout;
        this.translator = translator;
    }

    /** Whether {@code id} is a default id {@code <intake>-<p>-<offset>}: one the far tier keeps no state for. */
    public boolean isDefaultId(String id) {
        return router.place(id).offset() >= 0;
    }

    /**
     * The far record with this id, if the far tier holds it. An explicit id is found by its far version in Redis (the
     * record is read from the intake only with {@code readRecord}); a default id {@code <intake>-<p>-<offset>} by
     * reading that record from the intake, which tells its due time, then its entry in its hour and that no far drop
     * (a cancel, a replacement, an operator's thaw) is as new as the record.
     */
    public Optional<FarMessage> find(String id, boolean readRecord) {
        ShardRouter.Placement place = router.place(id);
        if (place.offset() >= 0) {
            int shard = place.shard(); // a default id lives in the shard of its intake partition
            if (place.offset() > FarEntry.MAX_OFFSET
                    || far.farHours(shard, Long.MAX_VALUE).isEmpty()) {
                return Optional.empty(); // no far entries at all: no intake read
            }
            ConsumerRecord<byte[], byte[]> record = read(shard, place.offset());
            FarMessage message = record == null ? null : translate(id, shard, record);
            if (message == null
                    || message.dueAt() < 0
                    || dropped(id, message.timestamp())
                    || !far.farHolds(shard, entry(message))) {
                return Optional.empty();
            }
            return Optional.of(message);
        }
        Optional<FarStore.FarVersion> version = far.farVersion(id);
        if (version.isEmpty()) {
            return Optional.empty();
        }
        FarStore.FarVersion v = version.get();
        int shard = router.shardOf(id);
        if (readRecord) {
            ConsumerRecord<byte[], byte[]> record = read(v.partition(), v.offset());
            FarMessage message = record == null ? null : translate(id, shard, record);
            if (message != null) {
                return Optional.of(message);
            }
        }
        return Optional.of(new FarMessage(
                id,
                shard,
                v.dueAt(),
                v.partition(),
                v.offset(),
                Envelope.origin(intake.topic(), v.partition(), v.offset()),
                v.timestamp(),
                null,
                null));
    }

    /**
     * Stores the far record with this id hot now, with its due time (an operator's thaw, {@link FarStore#ADMIN}: its
     * hour's thaw drops it later). Returns the record if it is hot now; empty if the far tier does not hold it or the
     * log lost it.
     */
    public Optional<FarMessage> thaw(String id) {
        Optional<FarMessage> found = find(id, true);
        if (found.isEmpty() || found.get().schedule() == null) {
            return Optional.empty();
        }
        FarMessage message = found.get();
        WriteResult result = await(
                far.thaw(message.shard(), FarStore.ADMIN, List.of(message.schedule())),
                "thaw of far message '" + id + "'");
        return switch (result) {
            case STORED, REPLACED, DUPLICATE -> Optional.of(message);
            default -> Optional.empty(); // replaced or cancelled meanwhile
        };
    }

    /** The hours of {@code shard} holding far entries due in {@code [from, to]}, earliest first. */
    public List<Long> hours(int shard, long from, long to) {
        List<Long> hours = new ArrayList<>();
        for (long hour : far.farHours(shard, to)) {
            if ((hour + 1) * FarEntry.HOUR_MILLIS > from) {
                hours.add(hour);
            }
        }
        return hours;
    }

    /** The far entries of one hour of {@code shard} due in {@code [from, to]}, sorted by intake position. */
    public List<FarEntry> due(int shard, long hour, long from, long to) {
        List<FarEntry> due = new ArrayList<>();
        for (FarEntry entry : far.readFar(shard, hour, 0).entries()) {
            if (entry.dueAt() >= from && entry.dueAt() <= to) {
                due.add(entry);
            }
        }
        return due;
    }

    /**
     * Of these far entries of {@code shard} (just read from their hours), the ids of those whose record goes to
     * {@code target} and that the far tier still holds as they are: the records are read from the intake, in one pass
     * sorted by position. An explicit id counts only if the entry is its current far version, a default id only if no
     * far drop is as new as its record.
     */
    public List<String> idsFor(int shard, List<FarEntry> entries, String target) {
        Map<OffsetReader.Position, ConsumerRecord<byte[], byte[]>> records =
                read(entries.stream().map(OffsetReader.Position::of).toList());
        List<String> ids = new ArrayList<>();
        for (FarEntry entry : entries) {
            ConsumerRecord<byte[], byte[]> record = records.get(OffsetReader.Position.of(entry));
            if (record == null) {
                continue;
            }
            RecordTranslator.Translation t = translator.translate(record);
            if (!t.schedule()
                    || t.dueAt() != entry.dueAt()
                    || !target.equals(t.envelope().target())) {
                continue;
            }
            if (t.id().equals(t.defaultId()) ? !dropped(t.id(), record.timestamp()) : isCurrentVersion(t.id(), entry)) {
                ids.add(t.id());
            }
        }
        return ids;
    }

    /** The record at one intake position, or null if the log does not hold it. */
    private ConsumerRecord<byte[], byte[]> read(int partition, long offset) {
        OffsetReader.Position position = new OffsetReader.Position(partition, offset);
        return read(List.of(position)).get(position);
    }

    /**
     * The records at {@code positions} that the log holds.
     *
     * @throws IntakeReadException if the intake is not read within the time given, or fails
     */
    private Map<OffsetReader.Position, ConsumerRecord<byte[], byte[]>> read(List<OffsetReader.Position> positions) {
        if (positions.isEmpty()) {
            return Map.of();
        }
        try {
            return intake.read(positions, readTimeout);
        } catch (KafkaException e) {
            throw new IntakeReadException("could not read the intake " + intake.topic() + ": " + e.getMessage(), e);
        }
    }

    /** Whether the thaw drops a default id's far record of this timestamp (the rule of {@code schedule.lua}). */
    private boolean dropped(String id, long timestamp) {
        var drop = messages.farDrop(id);
        return drop.isPresent() && drop.getAsLong() >= timestamp;
    }

    private boolean isCurrentVersion(String id, FarEntry entry) {
        return far.farVersion(id)
                .filter(v -> v.partition() == entry.partition() && v.offset() == entry.offset())
                .isPresent();
    }

    /** The record read back as the far record {@code id} of {@code shard}, or null if it is another id's. */
    private FarMessage translate(String id, int shard, ConsumerRecord<byte[], byte[]> record) {
        RecordTranslator.Translation t = translator.translate(record);
        if (!t.schedule() || !id.equals(t.id())) {
            return null;
        }
        return new FarMessage(
                id,
                shard,
                t.dueAt(),
                record.partition(),
                record.offset(),
                t.envelope().origin(),
                record.timestamp(),
                t.envelope(),
                (WriteOp.Schedule) t.op());
    }

    private static FarEntry entry(FarMessage m) {
        return new FarEntry(m.partition(), m.offset(), m.dueAt());
    }

    private static WriteResult await(java.util.concurrent.CompletableFuture<List<WriteResult>> call, String what) {
        try {
            return call.get(30, TimeUnit.SECONDS).get(0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(what + " interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw se;
            }
            throw new StoreUnavailableException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(what + ": no answer from Redis within 30 s", e);
        }
    }
}
