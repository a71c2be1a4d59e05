package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.schemas.IntakeOrigin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
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

    /**
     * A message claimed again (its lease ran out) while a transaction holds its earlier send, or after one committed
     * it: not sent a second time. Retried: by then the transaction is decided, and a committed one's message is acked.
     */
    static final class InTransactionException extends org.apache.kafka.common.errors.RetriableException {
        InTransactionException(int shard, String id) {
            super("message " + id + " of shard " + shard + " is in a transaction already; retried once it is decided");
        }
    }

    /** A transaction aborted because another of its sends failed: nothing of it reached a read_committed consumer. */
    static final class AbortedException extends org.apache.kafka.common.errors.RetriableException {
        AbortedException(int shard, Throwable cause) {
            super("the transaction of shard " + shard + " was aborted: " + Failures.describe(cause));
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
    /** Id -> origin of the sends of the open transaction and of those in doubt: none is sent twice meanwhile. */
    private final Map<String, String> pending = new HashMap<>();
    /** Sends of a commit whose outcome is unknown; settled by the next {@link #open}. */
    private List<Member> inDoubt = List.of();

    private volatile Exception failure;
    /** What committed transactions delivered and must be remembered: acked, not sent again, if claimed. */
    private final DeliveredIds delivered = new DeliveredIds();

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
            }
            delivered.learn(committed);
            for (Member member : inDoubt) {
                pending.remove(member.message.id());
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
            if (message.origin().equals(pending.get(message.id()))
                    || delivered.wasDelivered(message.id(), message.origin())) {
                result.failed(new InTransactionException(shard, message.id()));
                return;
            }
            if (!begun) {
                producer.beginTransaction();
                begun = true;
            }
            Member member = new Member(message, result);
            members.add(member);
            pending.put(message.id(), message.origin());
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
                    Map<String, Sends.Message> listed = delivered.listed();
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
                        pending.remove(member.message.id());
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
                        Failures.describe(e));
                List<Member> doubt = new ArrayList<>(inDoubt);
                doubt.addAll(batch);
                inDoubt = doubt;
                settle.clear();
                closeProducer();
                return;
            }
            for (Member member : batch) {
                delivered.committed(member.message);
                pending.remove(member.message.id());
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
                    Failures.describe(e));
            return e;
        }
    }

    /** See {@link DeliveredIds#wasDelivered}. */
    boolean wasDelivered(String id, String origin) {
        return delivered.wasDelivered(id, origin);
    }

    /** See {@link DeliveredIds#acked}. */
    void acked(Iterable<String> ids, boolean allDeleted) {
        delivered.acked(ids, allDeleted);
    }

    /**
     * Forgets what {@link DeliveredIds#prune} may: messages whose intake records the intake committed past, and that a
     * committed record of the delivered log puts below the floor ({@code belowFloor}). The group's offset alone is not
     * enough: a group coordinator back from a crash may answer an older one, and the intake then reads again from the
     * floor the log holds, which may not have reached the offset as last read (no transaction committed since).
     */
    void prune(IntakeCommits commits, Predicate<String> belowFloor) {
        delivered.prune(origin -> commits.committedPast(origin) && belowFloor.test(origin));
    }

    /** See {@link DeliveredIds#readAgain}. */
    void readAgain(long from, IntakeOrigin last) {
        delivered.readAgain(from, last);
    }

    /** Whether the shard's floor, as a committed record of the delivered log holds it, lies above {@code offset}. */
    boolean belowFloor(long offset) {
        return intakeFloor.passed(offset);
    }

    /** See {@link DeliveredIds#claimed}. */
    void claimed(Iterable<String> ids, boolean allDue) {
        delivered.claimed(ids, allDue);
    }

    /** See {@link DeliveredIds#released}. */
    void released(String id) {
        delivered.released(id);
    }

    /** See {@link DeliveredIds#retried}. */
    void retried(String id) {
        delivered.retried(id);
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
            pending.clear();
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
                LOG.debug("Closing the producer of shard {}: {}", shard, Failures.describe(e));
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
