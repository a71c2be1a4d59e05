package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.delivery.ShardProducer.Member;
import io.delaybridge.bridge.errors.Failures;
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
 * One shard's two transactional producers ({@link ShardProducer}) and the transactions they gather, taking turns: sends
 * (release and throttle threads) go into the current producer's transaction; a commit (the commit thread, or a flush)
 * takes that transaction under the shard's lock once its sends are acknowledged (so a key's records keep their order
 * in a partition across the turn), turns the sends to the other producer, and commits without the lock: no send waits
 * for the commit's own round trips (offsets, the delivered log, the end of the transaction). Commits of a shard run one at a time, in the order their transactions were taken: the
 * other producer's previous transaction has ended before sends turn to it, and each transaction's record of the
 * delivered log lists what every earlier one delivered. A transaction holds exactly the sends made into it while it
 * gathered. What it did is told to each send's result only once it committed (delivered) or aborted (failed); a commit
 * whose outcome is unknown (the producer failed, was fenced, timed out) leaves its sends, and those the other producer
 * gathers, in doubt until the shard is opened again and the delivered log says which of them committed.
 */
final class ShardTransaction {

    private static final Logger LOG = LoggerFactory.getLogger(ShardTransaction.class);

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
    /** Guards the producers, which one gathers, and what is pending or in doubt; never held across a broker call. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Held through a commit (and an open): a shard's commits run one at a time. Taken before {@link #lock}. */
    private final ReentrantLock committing = new ReentrantLock();

    private final ShardLog log;
    /** The intake's offsets that commit with the express records of a transaction; supplies null if none. */
    private final Supplier<TransactionOffsets> offsets;
    /** The intake floor the shard's delivered log records. */
    private final IntakeFloor intakeFloor;

    /** The shard's two producers, null while not open; sends go to {@code producers[current]}. */
    private ShardProducer[] producers;

    private int current;
    /** Id -> origin of the sends of open transactions and of those in doubt: none is sent twice meanwhile. */
    private final Map<String, String> pending = new HashMap<>();
    /** Sends of a commit whose outcome is unknown; settled by the next {@link #open}. */
    private List<Member> inDoubt = List.of();

    /** What committed transactions delivered and must be remembered: acked, not sent again, if claimed. */
    final DeliveredIds delivered = new DeliveredIds();

    ShardTransaction(int shard, ShardLog log, Supplier<TransactionOffsets> offsets, LongSupplier intakeCommitted) {
        this.shard = shard;
        this.log = log;
        this.offsets = offsets;
        this.intakeFloor = new IntakeFloor(shard, intakeCommitted);
    }

    boolean isOpen() {
        lock.lock();
        try {
            return producers != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The intake floor of the shard's last committed record of the delivered log, while the shard is open (its open
     * read that record after fencing every earlier producer, and only this owner's commits raise it since); -2 if it
     * is not open, -1 if the log holds none.
     */
    long openIntakeFloor() {
        lock.lock();
        try {
            return producers == null ? -2 : intakeFloor.value();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes {@code fresh}, the shard's two producers, just created: {@code initTransactions} on each fences every
     * earlier producer of its transactional id (aborting its open transaction or completing its commit), then the
     * delivered log's last record says what committed transactions delivered. Settles the sends left in doubt by a
     * failed commit.
     */
    void open(List<Producer<byte[], byte[]>> fresh) {
        List<Runnable> settle = new ArrayList<>();
        committing.lock();
        lock.lock();
        try {
            if (producers != null) {
                fresh.forEach(p -> new ShardProducer(p).close(shard));
                return;
            }
            List<Sends.Message> committed;
            try {
                fresh.forEach(Producer::initTransactions); // both fenced before the log is read
                DeliveredRecord.Contents latest = log.latest(shard);
                committed = latest.messages();
                intakeFloor.recorded(latest.intakeFloor());
            } catch (RuntimeException e) {
                fresh.forEach(p -> new ShardProducer(p).close(shard));
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
            producers = fresh.stream().map(ShardProducer::new).toArray(ShardProducer[]::new);
            current = 0;
            LOG.info(
                    "Shard {}: transactional producers ready; {} messages delivered by committed transactions are "
                            + "acked, not sent again",
                    shard,
                    committed.size());
        } finally {
            lock.unlock();
            committing.unlock();
        }
        settle.forEach(Runnable::run);
    }

    /** Sends {@code record} in the shard's gathering transaction (beginning one if none is open). */
    void send(Sends.Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result) {
        lock.lock();
        try {
            if (producers == null) {
                result.failed(new NotOpenException(shard));
                return;
            }
            if (message.origin().equals(pending.get(message.id()))
                    || delivered.wasDelivered(message.id(), message.origin())) {
                result.failed(new InTransactionException(shard, message.id()));
                return;
            }
            producers[current].send(new Member(message, result), record);
            pending.put(message.id(), message.origin());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Commits the gathering transaction with the shard's delivered-log record and the intake offsets that the intake
     * offers for the express records of it ({@link TransactionOffsets}); aborts it if a send of it failed, or the
     * offsets were refused (the intake's member lost its place in the group). Sends made meanwhile go into the other
     * producer's transaction. Then tells each send's result; Redis acks follow. A commit that fails leaves its sends
     * and the other producer's in doubt and closes both producers.
     */
    void commit() {
        committing.lock();
        try {
            ShardProducer producer;
            ShardProducer.Gathered batch;
            lock.lock();
            try {
                if (producers == null || !producers[current].gathering()) {
                    return;
                }
                producer = producers[current];
                // its sends reach their partitions before any of the other producer's: a key's records keep their
                // order across the turn. One round trip under the lock; the commit's own round trips are not
                producer.producer.flush();
                batch = producer.take();
                current = 1 - current; // the other producer's last transaction ended: commits run one at a time
            } finally {
                lock.unlock();
            }
            finish(producer, batch);
        } finally {
            committing.unlock();
        }
    }

    /** Commits or aborts the transaction {@code batch} of {@code producer}, without the shard's lock. */
    private void finish(ShardProducer producer, ShardProducer.Gathered batch) {
        List<Runnable> settle = new ArrayList<>();
        TransactionOffsets.Carry carry = null;
        boolean committed = false;
        Exception failed = batch.failure;
        try {
            long floor = -1;
            if (failed == null) {
                Map<String, Sends.Message> listed = delivered.listed();
                for (Member member : batch.members) {
                    listed.put(member.message.id(), member.message);
                }
                carry = offer(batch.members);
                floor = intakeFloor.forRecord(carry);
                producer.producer.send(log.record(shard, DeliveredRecord.encode(listed.values(), floor)));
                if (carry != null) {
                    failed = sendOffsets(producer.producer, carry);
                }
            }
            if (failed != null) {
                producer.producer.abortTransaction();
            } else {
                producer.producer.commitTransaction();
                committed = true;
                intakeFloor.recorded(floor);
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Shard {}: a transaction of {} sends failed to {} ({}); opening the producers again to learn "
                            + "what committed",
                    shard,
                    batch.members.size(),
                    failed != null ? "abort" : "commit",
                    Failures.describe(e));
            inDoubt(batch.members);
            return;
        } finally {
            if (carry != null) {
                carry.ended(committed);
            }
        }
        lock.lock();
        try {
            for (Member member : batch.members) {
                pending.remove(member.message.id());
                if (committed) {
                    delivered.committed(member.message);
                    settle.add(() -> member.result.delivered(member.timestamp));
                } else {
                    Exception error = member.error != null ? member.error : new AbortedException(shard, failed);
                    settle.add(() -> member.result.failed(error));
                }
            }
        } finally {
            lock.unlock();
        }
        settle.forEach(Runnable::run);
    }

    /**
     * A commit's outcome is unknown: its sends ({@code members}) and those the other producer gathers stay pending,
     * in doubt, until the shard is opened again; both producers are closed (the next open's fence aborts what they
     * hold open).
     */
    private void inDoubt(List<Member> members) {
        lock.lock();
        try {
            List<Member> doubt = new ArrayList<>(inDoubt);
            doubt.addAll(members);
            if (producers != null) {
                for (ShardProducer producer : producers) {
                    ShardProducer.Gathered open = producer.take();
                    if (open != null) {
                        doubt.addAll(open.members);
                    }
                    producer.close(shard);
                }
                producers = null;
            }
            inDoubt = doubt;
        } finally {
            lock.unlock();
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

    /** Adds the carried offsets to {@code producer}'s open transaction; returns why they were refused (abort), or null. */
    private Exception sendOffsets(Producer<byte[], byte[]> producer, TransactionOffsets.Carry carry) {
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

    /**
     * Forgets what {@link DeliveredIds#prune} may: messages whose intake records the intake committed past, and that a
     * committed record of the delivered log puts below the floor ({@code belowFloor}). The group's offset alone is not
     * enough: a group coordinator back from a crash may answer an older one, and the intake then reads again from the
     * floor the log holds, which may not have reached the offset as last read (no transaction committed since).
     */
    void prune(IntakeCommits commits, Predicate<String> belowFloor) {
        delivered.prune(origin -> commits.committedPast(origin) && belowFloor.test(origin));
    }

    /** Whether the shard's floor, as a committed record of the delivered log holds it, lies above {@code offset}. */
    boolean belowFloor(long offset) {
        return intakeFloor.passed(offset);
    }

    /** Commits ({@code commit}) or aborts what is open, closes the producers, and fails what stays in doubt. */
    void close(boolean commit) {
        if (commit) {
            commit();
        }
        List<Member> failed = new ArrayList<>();
        committing.lock();
        lock.lock();
        try {
            if (producers != null) {
                for (ShardProducer producer : producers) {
                    ShardProducer.Gathered open = producer.take();
                    if (open != null) {
                        failed.addAll(open.members);
                    }
                    producer.close(shard);
                }
                producers = null;
            }
            failed.addAll(inDoubt);
            inDoubt = List.of();
            pending.clear();
        } finally {
            lock.unlock();
            committing.unlock();
        }
        for (Member member : failed) {
            member.result.failed(new NotOpenException(shard));
        }
    }
}
