package io.delaybridge.bridge.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard's transactional producer and the transaction it has open. Sends (release and throttle threads) and
 * commits (the commit thread, or a flush) take turns under one lock: a transaction holds exactly the sends made while
 * it was open. What it did is told to each send's result only once it committed (delivered) or aborted (failed); a
 * commit whose outcome is unknown (the producer failed, was fenced, timed out) leaves its sends in doubt until the
 * producer is opened again and the delivered log says which of them committed.
 */
final class ShardTransaction {

    private static final Logger LOG = LoggerFactory.getLogger(ShardTransaction.class);

    /** One send of the open transaction: its timestamp or error arrives in the producer's callback. */
    static final class Member {
        final Sends.Message message;
        final Delivery.Result result;
        volatile long timestamp = -1;
        volatile Exception error;

        Member(Sends.Message message, Delivery.Result result) {
            this.message = message;
            this.result = result;
        }
    }

    /** A send made while the shard's producer is not open (after a failed commit): retried later. */
    static final class NotOpenException extends org.apache.kafka.common.errors.RetriableException {
        NotOpenException(int shard) {
            super("the transactional producer of shard " + shard + " is being opened again");
        }
    }

    /** A transaction aborted because another of its sends failed: nothing of it reached a read_committed consumer. */
    static final class AbortedException extends org.apache.kafka.common.errors.RetriableException {
        AbortedException(int shard, Throwable cause) {
            super("the transaction of shard " + shard + " was aborted: " + SendFailures.describe(cause));
        }
    }

    final int shard;
    private final ReentrantLock lock = new ReentrantLock();
    private final DeliveredLog log;
    /** The intake's offsets that commit with the express records of a transaction; supplies null if none. */
    private final Supplier<TransactionOffsets> offsets;
    /** The intake floor the shard's delivered log records. */
    private final IntakeFloor intakeFloor;

    private Producer<byte[], byte[]> producer;
    private boolean begun;
    private List<Member> members = new ArrayList<>();
    /** Sends of a commit whose outcome is unknown; settled by the next {@link #open}. */
    private List<Member> inDoubt = List.of();

    private volatile Exception failure;
    /** Committed (delivered or deadlettered), ack not confirmed by Redis yet: id -> message. */
    private final Map<String, Sends.Message> delivered = new ConcurrentHashMap<>();
    /** Ids learnt from the delivered log at open and not claimed since (perhaps acked long ago). */
    private final LearntIds learnt = new LearntIds();
    /**
     * Ids of {@link #delivered} whose acks Redis confirmed (or learnt ones no claim took): forgotten once the intake
     * committed past their record, which a crash before that commit makes the intake store again.
     */
    private final Set<String> settled = ConcurrentHashMap.newKeySet();

    ShardTransaction(int shard, DeliveredLog log, Supplier<TransactionOffsets> offsets, LongSupplier intakeCommitted) {
        this.shard = shard;
        this.log = log;
        this.offsets = offsets;
        this.intakeFloor = new IntakeFloor(shard, intakeCommitted);
    }

    boolean isOpen() {
        return producer != null;
    }

    /**
     * Takes {@code fresh}, just created: {@code initTransactions} fences every earlier producer of the shard's
     * transactional id (aborting its open transaction or completing its commit), then the delivered log's last record
     * says what committed transactions delivered. Settles the sends left in doubt by a failed commit.
     */
    void open(Producer<byte[], byte[]> fresh) {
        List<Runnable> settle = new ArrayList<>();
        lock.lock();
        try {
            if (producer != null) {
                fresh.close(Duration.ZERO);
                return;
            }
            List<Sends.Message> committed;
            try {
                fresh.initTransactions();
                DeliveredRecord.Contents latest = log.latest(shard);
                committed = latest.messages();
                intakeFloor.recorded(latest.intakeFloor());
            } catch (RuntimeException e) {
                fresh.close(Duration.ZERO);
                throw e;
            }
            Map<String, Sends.Message> byId = new LinkedHashMap<>();
            for (Sends.Message message : committed) {
                byId.put(message.id(), message);
                if (delivered.putIfAbsent(message.id(), message) == null) {
                    learnt.learn(message.id());
                }
            }
            for (Member member : inDoubt) {
                Sends.Message listed = byId.get(member.message.id());
                if (listed != null && listed.origin().equals(member.message.origin())) {
                    settle.add(() -> member.result.delivered(member.timestamp));
                } else {
                    settle.add(() -> member.result.failed(new AbortedException(
                            shard,
                            member.error != null ? member.error : new KafkaException("its commit did not complete"))));
                }
            }
            inDoubt = List.of();
            producer = fresh;
            LOG.info(
                    "Shard {}: transactional producer ready; {} messages delivered by committed transactions are "
                            + "acked, not sent again",
                    shard,
                    committed.size());
        } finally {
            lock.unlock();
        }
        settle.forEach(Runnable::run);
    }

    /** Sends {@code record} in the shard's open transaction (beginning one if none is open). */
    void send(Sends.Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result) {
        lock.lock();
        try {
            if (producer == null) {
                result.failed(new NotOpenException(shard));
                return;
            }
            if (!begun) {
                producer.beginTransaction();
                begun = true;
            }
            Member member = new Member(message, result);
            members.add(member);
            try {
                producer.send(record, (metadata, error) -> {
                    if (error == null) {
                        member.timestamp = metadata.timestamp();
                    } else {
                        member.error = error;
                        failure = error;
                    }
                });
            } catch (RuntimeException e) {
                member.error = e;
                failure = e;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Commits the open transaction with the shard's delivered-log record and the intake offsets that the intake offers
     * for the express records of it ({@link TransactionOffsets}); aborts it if a send of it failed, or the offsets
     * were refused (the intake's member lost its place in the group). Then tells each send's result; Redis acks
     * follow. A commit that fails leaves its sends in doubt and closes the producer.
     */
    void commit() {
        List<Runnable> settle = new ArrayList<>();
        TransactionOffsets.Carry carry = null;
        boolean committed = false;
        long floor = -1;
        lock.lock();
        try {
            if (!begun || producer == null) {
                return;
            }
            List<Member> batch = members;
            members = new ArrayList<>();
            begun = false;
            Exception failed = failure;
            failure = null;
            try {
                if (failed == null) {
                    Map<String, Sends.Message> listed = new LinkedHashMap<>(delivered);
                    for (Member member : batch) {
                        listed.put(member.message.id(), member.message);
                    }
                    carry = offer(batch);
                    floor = intakeFloor.forRecord(carry);
                    producer.send(log.record(shard, DeliveredRecord.encode(listed.values(), floor)));
                    if (carry != null) {
                        failed = sendOffsets(carry);
                    }
                }
                if (failed != null) {
                    producer.abortTransaction();
                    for (Member member : batch) {
                        Exception error = member.error != null ? member.error : new AbortedException(shard, failed);
                        settle.add(() -> member.result.failed(error));
                    }
                    return;
                }
                producer.commitTransaction();
                committed = true;
                intakeFloor.recorded(floor);
            } catch (RuntimeException e) {
                LOG.warn(
                        "Shard {}: a transaction of {} sends failed to {} ({}); opening the producer again to learn "
                                + "what committed",
                        shard,
                        batch.size(),
                        failed != null ? "abort" : "commit",
                        SendFailures.describe(e));
                List<Member> doubt = new ArrayList<>(inDoubt);
                doubt.addAll(batch);
                inDoubt = doubt;
                settle.clear();
                closeProducer();
                return;
            }
            for (Member member : batch) {
                delivered.put(member.message.id(), member.message);
                settle.add(() -> member.result.delivered(member.timestamp));
            }
        } finally {
            try {
                if (carry != null) {
                    carry.ended(committed);
                }
            } finally {
                lock.unlock(); // whatever ended() does: a shard lock left held would park every send for good
            }
            settle.forEach(Runnable::run);
        }
    }

    /** The intake offsets that may commit with {@code batch}, or null. */
    private TransactionOffsets.Carry offer(List<Member> batch) {
        TransactionOffsets source = offsets.get();
        if (source == null) {
            return null;
        }
        List<String> origins = new ArrayList<>(batch.size());
        for (Member member : batch) {
            origins.add(member.message.origin());
        }
        try {
            return source.offer(shard, origins);
        } catch (RuntimeException e) {
            LOG.warn("Shard {}: the intake's offsets are not committed with this transaction: {}", shard, e.toString());
            return null;
        }
    }

    /** Adds the carried offsets to the open transaction; returns why they were refused (abort), or null. */
    private Exception sendOffsets(TransactionOffsets.Carry carry) {
        try {
            producer.sendOffsetsToTransaction(carry.offsets(), carry.group());
            return null;
        } catch (KafkaException e) {
            LOG.info(
                    "Shard {}: intake offsets {} refused ({}); aborting the transaction, its sends are retried",
                    shard,
                    carry.offsets(),
                    SendFailures.describe(e));
            return e;
        }
    }

    boolean wasDelivered(String id, String origin) {
        Sends.Message message = delivered.get(id);
        if (message == null || !message.origin().equals(origin)) {
            return false;
        }
        return true; // acked now, and forgotten once Redis confirms
    }

    void acked(Iterable<String> ids) {
        for (String id : ids) {
            learnt.taken(id);
            if (delivered.containsKey(id)) {
                settled.add(id);
            }
        }
    }

    /**
     * Forgets settled messages whose intake records the intake committed past: they are never stored again. Learnt ids
     * whose records it committed past start counting short claims ({@link LearntIds}).
     */
    void prune(IntakeCommits commits) {
        if (!learnt.isEmpty()) {
            learnt.committedPast(id -> {
                Sends.Message message = delivered.get(id);
                return message == null || commits.committedPast(message.origin());
            });
        }
        for (String id : settled) {
            Sends.Message message = delivered.get(id);
            if (message == null || commits.committedPast(message.origin())) {
                delivered.remove(id);
                settled.remove(id);
            }
        }
    }

    /**
     * A claim took {@code ids}: they stay remembered until released. With {@code allDue} (the claim came back short),
     * what was learnt at open, no claim has taken, and can no longer come back ({@link LearntIds}) was acked before:
     * it is forgotten like a settled message.
     */
    void claimed(Iterable<String> ids, boolean allDue) {
        if (learnt.isEmpty()) {
            return;
        }
        for (String id : ids) {
            learnt.taken(id);
        }
        if (allDue) {
            settled.addAll(learnt.shortClaim());
        }
    }

    /** Commits ({@code commit}) or aborts what is open, closes the producer, and fails what stays in doubt. */
    void close(boolean commit) {
        if (commit) {
            commit();
        }
        List<Member> failed = new ArrayList<>();
        lock.lock();
        try {
            if (producer != null && begun) {
                failed.addAll(members);
                members = new ArrayList<>();
                begun = false;
            }
            failed.addAll(inDoubt);
            inDoubt = List.of();
            closeProducer();
        } finally {
            lock.unlock();
        }
        for (Member member : failed) {
            member.result.failed(new NotOpenException(shard));
        }
    }

    private void closeProducer() {
        if (producer != null) {
            try {
                producer.close(Duration.ZERO); // aborts an open transaction; a fenced producer cannot do more
            } catch (RuntimeException e) {
                LOG.debug("Closing the producer of shard {}: {}", shard, SendFailures.describe(e));
            }
            producer = null;
        }
    }

    int openSends() {
        lock.lock();
        try {
            return members.size();
        } finally {
            lock.unlock();
        }
    }
}
