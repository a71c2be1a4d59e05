package io.delaybridge.bridge.store;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The far tier of a store: records due far ahead wait in the intake topic's log and the store keeps only an index entry
 * each ({@link FarEntry}), in one bucket per shard and due hour. The thaw of a shard's owner reads the hours coming
 * due, fetches their records from the intake by offset and hands them to {@link #thaw}, which stores them in the hot
 * tier with the same id, version and due time and marks their entries thawed; then {@link #farThawed} removes the
 * hour.
 *
 * <p>Records reach the far tier through {@link DelayStore#write} with {@link WriteOp.Schedule#far()} set.
 */
public interface FarStore {

    /**
     * The epoch of a thaw asked for by an operator ({@code fire-now}, reschedule of a far record): not fenced, and a
     * default id's entry, thawed ahead of its hour, is dropped when its hour thaws.
     */
    long ADMIN = -1;

    /**
     * The version of an explicit id waiting in the far tier: its record's intake position and timestamp, and its due
     * time.
     */
    record FarVersion(int partition, long offset, long timestamp, long dueAt) {}

    /** The hours of {@code shard} that hold far entries and start at or before {@code untilMillis}, earliest first. */
    List<Long> farHours(int shard, long untilMillis);

    /**
     * Reads the entries of an hour of {@code shard} from byte {@code from} on (0: the whole hour) that are not marked
     * thawed, sorted by (partition, offset).
     */
    FarHour readFar(int shard, long hour, int from);

    /**
     * Stores records read back from the intake in the hot tier of {@code shard}, under its fencing epoch: each as the
     * intake would have stored it hot ({@code far} false), unless the far tier no longer holds it: an explicit id whose
     * far version is another record's, or that was cancelled ({@link WriteResult#SUPERSEDED},
     * {@link WriteResult#ALREADY_CANCELLED}); a default id a newer record named. Idempotent on (id, origin) like every
     * schedule. The future fails with {@link StoreFencedException} if {@code epoch} is stale. {@link #ADMIN} thaws
     * without fencing (an operator's request, from any instance).
     */
    CompletableFuture<List<WriteResult>> thaw(int shard, long epoch, List<WriteOp.Schedule> records);

    /**
     * The owner's thaw of records read from {@code hour}'s entries: as {@link #thaw(int, long, List)}, and each
     * record's {@code slots} (the entries of {@code hour} it was read for) are marked thawed in the same step, whatever
     * the record's result. A record whose slots are all marked already was thawed before, by this owner or an earlier
     * one, and may have been delivered since: {@link WriteResult#DUPLICATE}, nothing is stored. So an hour thawed
     * again after a thaw that stopped halfway stores nothing twice. {@code slots} is parallel to {@code records}.
     */
    CompletableFuture<List<WriteResult>> thaw(
            int shard, long epoch, long hour, List<WriteOp.Schedule> records, List<List<FarHour.Slot>> slots);

    /**
     * The records of an hour read up to {@code length} bytes are hot: the hour goes unless entries were appended since
     * the read. Returns 0 if it went, else the length to read on from. Throws {@link StoreFencedException} if
     * {@code epoch} is stale. Remembered drops of default ids (a cancel or a replacement that found its id in no tier)
     * made by records older than {@code forgetBefore} (epoch ms) are forgotten: no record still far can be that old
     * (the thaw passes {@code hour}'s start minus the longest delay the far tier takes).
     */
    long farThawed(int shard, long epoch, long hour, int length, long forgetBefore);

    /** The far version of an explicit id, if it waits in the far tier. */
    Optional<FarVersion> farVersion(String id);

    /** Whether the far tier of {@code shard} holds {@code entry} (read from its hour). */
    boolean farHolds(int shard, FarEntry entry);

    /** Per hour (epoch ms / {@link FarEntry#HOUR_MILLIS}) the far entries {@code shard} holds, earliest first. */
    Map<Long, Long> farCountsByHour(int shard);

    /** The far entries {@code shard} holds. */
    long farCount(int shard);
}
