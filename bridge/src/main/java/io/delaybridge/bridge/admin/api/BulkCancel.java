package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.FarMessages;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.EnvelopeCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * One bulk cancel by target and due-time range ({@code POST /messages/cancel}): the hot messages of each shard, from
 * Redis, then the far records, whose target only the intake knows: the far entries due in the range are read from
 * their hours, their records fetched from the intake in batches, and those of the target cancelled by id. Entries
 * examined in either tier count against {@code api.maxBulkScan}.
 */
final class BulkCancel {

    /** Messages read (hot) or records fetched from the intake (far) per step. */
    static final int PAGE = 500;

    private final DelayStore store;
    private final MessageAdmin messages;
    private final FarMessages far;
    private final String target;
    private final long from;
    private final long to;
    private final int limit;
    private final long maxScan;

    int cancelled;
    int farCancelled;
    long examined;
    long farExamined;
    boolean scanLimitHit;
    /** Why the far records were not all examined (the intake could not be read), or null. */
    String farError;

    /** The schedules a bulk cancel is about: those of {@code target} due from {@code from} to {@code to}. */
    record Selection(String target, long from, long to) {}

    BulkCancel(DelayStore store, MessageAdmin messages, FarMessages far, Selection selection, int limit, long maxScan) {
        this.store = store;
        this.messages = messages;
        this.far = far;
        this.target = selection.target();
        this.from = selection.from();
        this.to = selection.to();
        this.limit = limit;
        this.maxScan = maxScan;
    }

    BulkCancel run() {
        for (int shard = 0; shard < store.shardCount() && !done(); shard++) {
            hot(shard);
        }
        try {
            for (int shard = 0; shard < store.shardCount() && !done(); shard++) {
                for (long hour : far.hours(shard, from, to)) {
                    if (done()) {
                        break;
                    }
                    farHour(shard, hour);
                }
            }
        } catch (FarMessages.IntakeReadException e) {
            farError = e.getMessage(); // what was cancelled so far stays cancelled, and is reported
        }
        return this;
    }

    private boolean done() {
        return cancelled >= limit || scanLimitHit;
    }

    private void hot(int shard) {
        long skip = 0; // messages in range that stay (other targets); cancelled ones leave the range
        while (cancelled < limit) {
            if (examined >= maxScan) {
                scanLimitHit = true;
                return;
            }
            int page = (int) Math.min(PAGE, maxScan - examined);
            List<StoredMessage> batch = messages.scanDue(shard, from, to, skip, page);
            if (batch.isEmpty()) {
                return;
            }
            examined += batch.size();
            List<WriteOp> cancels = new ArrayList<>();
            for (StoredMessage m : batch) {
                if (cancels.size() + cancelled < limit && target.equals(targetOf(m))) {
                    cancels.add(new WriteOp.Cancel(m.id()));
                } else {
                    skip++;
                }
            }
            for (WriteResult result : StoreWrites.writeAll(store, cancels, "bulk cancel on shard " + shard)) {
                if (result == WriteResult.CANCELLED) {
                    cancelled++;
                } else {
                    skip--; // delivered or cancelled meanwhile: it left the range, like a cancelled one
                }
            }
            if (batch.size() < page) {
                return;
            }
        }
    }

    private void farHour(int shard, long hour) {
        List<FarEntry> due = far.due(shard, hour, from, to);
        for (int at = 0; at < due.size() && cancelled < limit; at += PAGE) {
            if (examined >= maxScan) {
                scanLimitHit = true;
                return;
            }
            int page = (int) Math.min(Math.min(PAGE, due.size() - at), maxScan - examined);
            List<FarEntry> batch = due.subList(at, at + page);
            examined += batch.size();
            farExamined += batch.size();
            List<WriteOp> cancels = new ArrayList<>();
            for (String id : far.idsFor(shard, batch, target)) {
                if (cancels.size() + cancelled < limit) {
                    cancels.add(new WriteOp.Cancel(id));
                }
            }
            List<WriteResult> results =
                    StoreWrites.writeAll(store, cancels, "bulk cancel of far records on shard " + shard);
            for (int i = 0; i < results.size(); i++) {
                // a default id's far record keeps no state by id: its cancel answers NOT_FOUND, and drops its thaw
                boolean defaultId = far.isDefaultId(cancels.get(i).id());
                if (results.get(i) == WriteResult.CANCELLED || (defaultId && results.get(i) == WriteResult.NOT_FOUND)) {
                    cancelled++;
                    farCancelled++;
                }
            }
        }
    }

    private static String targetOf(StoredMessage m) {
        if (m.envelope() == null) {
            return null;
        }
        try {
            return EnvelopeCodec.decode(m.envelope()).target();
        } catch (CorruptEnvelopeException e) {
            return null;
        }
    }
}
