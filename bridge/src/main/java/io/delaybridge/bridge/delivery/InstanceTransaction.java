package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.delivery.TurnProducer.Member;
import io.delaybridge.bridge.errors.Failures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance's two transactional producers ({@link TurnProducer}) and the transactions they gather for every shard it
 * owns, taking turns: sends (release and express threads) go into the current producer's transaction; a commit (the
 * commit thread, or a flush) takes that transaction under the lock once its sends are acknowledged (so a key's records
 * keep their order in a partition across the turn), turns the sends to the other producer, and commits without the
 * lock. Commits run one at a time, in the order their transactions were taken. A transaction holds the sends made into
 * it while it gathered, one record of the delivered log per shard it delivered for (listing what that shard's
 * committed transactions delivered, its own sends included), and the intake offsets its express records let commit.
 * What it did is told to each send's result only once it committed (delivered) or aborted (failed).
 *
 * <p>A commit whose outcome is unknown (a producer failed, was fenced, timed out) closes both producers and leaves its
 * sends, and those the other producer gathered, in doubt: every shard is closed, and each is opened again in the next
 * session of the producers ({@link #openSession}), only once its owner proved it still owns it, by reading its
 * delivered log ({@link #openShard}), which settles its sends in doubt.
 */
final class InstanceTransaction {

    private static final Logger LOG = LoggerFactory.getLogger(InstanceTransaction.class);

    /** A send of a shard that is not open in the current session of the producers (retried once it is). */
    static final class NotOpenException extends HeldBackException {
        NotOpenException(int shard) {
            super("the transactions of shard " + shard + " are being opened again");
        }
    }

    /**
     * A message claimed again (its lease ran out) while a transaction holds its earlier send, or after one committed
     * it: not sent a second time. Retried: by then the transaction is decided, and a committed one's message is acked.
     */
    static final class InTransactionException extends HeldBackException {
        InTransactionException(int shard, String id) {
            super("message " + id + " of shard " + shard + " is in a transaction already; retried once it is decided");
        }
    }

    /** A transaction aborted because another of its sends failed: nothing of it reached a read_committed consumer. */
    static final class AbortedException extends HeldBackException {
        AbortedException(int shard, Throwable cause) {
            super("the transaction of shard " + shard + " was aborted: " + Failures.describe(cause));
        }
    }

    /** Guards the producers, which one gathers, the session, and what is pending or in doubt; no broker call under it. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Held through a commit and an open: commits run one at a time. Taken before {@link #lock}. */
    private final ReentrantLock committing = new ReentrantLock();

    private final ShardLog log;
    /** What a commit adds to its transaction: the delivered-log records and intake offsets. */
    private final TransactionRecords records;
    /** The shard's state, or null if it is not kept here (moved away). */
    private final IntFunction<TransactionShard> shards;

    /** The producers' session, and which of them gathers. */
    private final ProducerPair producers = new ProducerPair();
    /** Id -> origin of the sends of open transactions and of those in doubt: none is sent twice meanwhile. */
    private final Map<String, String> pending = new HashMap<>();
    /** Sends of a commit whose outcome is unknown; each settled when its shard is opened again, or failed if closed. */
    private final List<Member> inDoubt = new ArrayList<>();

    InstanceTransaction(ShardLog log, TransactionRecords.OffsetsSource offsets, IntFunction<TransactionShard> shards) {
        this.log = log;
        this.records = new TransactionRecords(log, offsets, shards);
        this.shards = shards;
    }

    /** Whether a session of the producers is open. */
    boolean hasSession() {
        lock.lock();
        try {
            return producers.isOpen();
        } finally {
            lock.unlock();
        }
    }

    /** The Kafka client metrics of the current session's producers; none while no session is open. */
    List<Map<MetricName, ? extends Metric>> producerMetrics() {
        lock.lock();
        try {
            return producers.metrics();
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code shard} may send: opened in the current session. */
    boolean isOpen(TransactionShard shard) {
        lock.lock();
        try {
            return producers.isOpen() && shard.session == producers.session();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes {@code fresh}, the instance's two producers, just created, unless a session is open already (then closes
     * them): {@code initTransactions} on each fences every earlier producer of its transactional id (a killed run of
     * this instance: its open transaction aborts at once). Every shard must be opened again in the new session.
     */
    void openSession(List<Producer<byte[], byte[]>> fresh) {
        committing.lock();
        try {
            if (hasSession()) {
                fresh.forEach(p -> new TurnProducer(p).close());
                return;
            }
            try {
                fresh.forEach(Producer::initTransactions);
            } catch (RuntimeException e) {
                fresh.forEach(p -> new TurnProducer(p).close());
                throw e;
            }
            lock.lock();
            try {
                producers.begin(fresh);
            } finally {
                lock.unlock();
            }
        } finally {
            committing.unlock();
        }
    }

    /**
     * Opens {@code shard} in the current session, once every other writer of its transactions was fenced: reads its
     * delivered log (from where its last read ended, or its last record), learns what committed transactions delivered
     * and settles its sends left in doubt. No commit runs meanwhile, so none of this instance's records is half-written.
     */
    void openShard(TransactionShard shard) {
        List<Runnable> settle = new ArrayList<>();
        committing.lock();
        try {
            if (!hasSession()) {
                throw new NotOpenException(shard.shard);
            }
            ShardLog.Read read = log.read(shard.shard, shard.logFrom);
            List<Sends.Message> committed = read.contents().messages();
            lock.lock();
            try {
                Map<String, Sends.Message> byId = new HashMap<>();
                committed.forEach(message -> byId.put(message.id(), message));
                shard.delivered.learn(committed);
                shard.intakeFloor.recorded(read.contents().intakeFloor());
                inDoubt.removeIf(member -> {
                    if (member.shard != shard.shard) {
                        return false;
                    }
                    pending.remove(member.message.id());
                    Sends.Message listed = byId.get(member.message.id());
                    if (listed != null && listed.origin().equals(member.message.origin())) {
                        settle.add(() -> member.result.delivered(member.timestamp));
                    } else {
                        Exception cause =
                                member.error != null ? member.error : new KafkaException("its commit did not complete");
                        settle.add(() -> member.result.failed(new AbortedException(shard.shard, cause)));
                    }
                    return true;
                });
                shard.session = producers.session();
                shard.logFrom = read.end();
                shard.logged.opened();
            } finally {
                lock.unlock();
            }
            LOG.info(
                    "Shard {}: open for transactions; {} messages delivered by committed transactions are acked, not "
                            + "sent again",
                    shard.shard,
                    committed.size());
        } finally {
            committing.unlock();
        }
        settle.forEach(Runnable::run);
    }

    /** Sends {@code record} in the gathering transaction (beginning one if none is open). */
    void send(TransactionShard shard, Sends.Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result r) {
        lock.lock();
        try {
            if (!producers.isOpen() || shard.session != producers.session()) {
                r.failed(new NotOpenException(shard.shard));
                return;
            }
            if (message.origin().equals(pending.get(message.id()))
                    || shard.delivered.wasDelivered(message.id(), message.origin())
                    || shard.delivered.forgottenLately(message.id(), message.origin())) {
                r.failed(new InTransactionException(shard.shard, message.id()));
                return;
            }
            try {
                producers.gathering().send(new Member(shard.shard, message, r), record);
            } catch (RuntimeException e) {
                unusable(e);
                r.failed(new NotOpenException(shard.shard));
                return;
            }
            pending.put(message.id(), message.origin());
        } finally {
            lock.unlock();
        }
    }

    /**
     * A producer refused to begin a transaction: it will refuse every call from now on (Kafka's client does so after
     * an invalid state transition, as when a batch expired while its transaction committed). Ends the session as a
     * commit in doubt does, so that the shards are opened again with fresh producers; the lock is held.
     */
    private void unusable(RuntimeException e) {
        LOG.warn(
                "A transactional producer refused to begin a transaction ({}); opening the producers again",
                Failures.describe(e));
        producers.close(inDoubt);
    }

    /**
     * Commits the gathering transaction with a delivered-log record per shard it holds sends of and the intake offsets
     * the intake offers for its express records ({@link TransactionOffsets}); aborts it if a send of it failed, or the
     * offsets were refused (the intake's member lost its place in the group). Sends made meanwhile go into the other
     * producer's transaction. Then tells each send's result; Redis acks follow.
     */
    void commit() {
        committing.lock();
        try {
            TurnProducer producer;
            TurnProducer.Gathered batch;
            lock.lock();
            try {
                producer = producers.gatheringWithSends();
                if (producer == null) {
                    return;
                }
                // its sends reach their partitions before any of the other producer's: a key's records keep their
                // order across the turn. One round trip under the lock; the commit's own round trips are not
                producer.producer.flush();
                batch = producer.take();
                producers.turn(); // the other producer's last transaction ended: commits run one at a time
            } finally {
                lock.unlock();
            }
            finish(producer, batch);
        } finally {
            committing.unlock();
        }
    }

    /** Commits or aborts the transaction {@code batch} of {@code producer}, without the lock. */
    private void finish(TurnProducer producer, TurnProducer.Gathered batch) {
        // in ascending shard order: the intake's plain commit takes its partitions' offset lanes in that order too
        // (ExpressOffsets), and a transaction that takes them in another could wait for one it holds
        Map<Integer, List<Member>> byShard = new java.util.TreeMap<>();
        for (Member member : batch.members) {
            byShard.computeIfAbsent(member.shard, s -> new ArrayList<>()).add(member);
        }
        List<TransactionOffsets.Carry> carries = new ArrayList<>();
        Map<TransactionShard, TransactionRecords.Written> written = new HashMap<>();
        boolean committed = false;
        Exception failed = batch.failure;
        try {
            if (failed == null) {
                failed = records.write(producer.producer, byShard, carries, written);
            }
            if (failed != null) {
                producer.producer.abortTransaction();
            } else {
                producer.producer.commitTransaction();
                committed = true;
                for (Map.Entry<TransactionShard, TransactionRecords.Written> shard : written.entrySet()) {
                    shard.getValue().committed(shard.getKey());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "A transaction of {} sends over {} shards failed to {} ({}); opening the producers again to learn "
                            + "what committed",
                    batch.members.size(),
                    byShard.size(),
                    failed != null ? "abort" : "commit",
                    Failures.describe(e));
            inDoubt(batch.members);
            return;
        } finally {
            for (TransactionOffsets.Carry carry : carries) {
                carry.ended(committed);
            }
        }
        settle(batch.members, committed, failed);
    }

    /** Tells each send of a transaction that ended how it ended. */
    private void settle(List<Member> members, boolean committed, Exception failed) {
        List<Runnable> settle = new ArrayList<>();
        lock.lock();
        try {
            for (Member member : members) {
                pending.remove(member.message.id());
                if (committed) {
                    TransactionShard shard = shards.apply(member.shard);
                    if (shard != null) {
                        shard.delivered.committed(member.message);
                    }
                    settle.add(() -> member.result.delivered(member.timestamp));
                } else {
                    Exception error = member.error != null ? member.error : new AbortedException(member.shard, failed);
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
     * in doubt, until their shards are opened again; both producers are closed (the next session's fence aborts what
     * they hold open).
     */
    private void inDoubt(List<Member> members) {
        lock.lock();
        try {
            inDoubt.addAll(members);
            producers.close(inDoubt);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code shard} moved away or is fenced: it sends nothing more; its sends in doubt fail. Sends of it that a
     * transaction holds commit or abort with it: a committed one is listed in the shard's delivered log, which its
     * next owner reads once it fenced this instance.
     */
    void closeShard(TransactionShard shard) {
        List<Member> failed = new ArrayList<>();
        lock.lock();
        try {
            shard.session = TransactionShard.CLOSED;
            inDoubt.removeIf(member -> {
                if (member.shard != shard.shard) {
                    return false;
                }
                pending.remove(member.message.id());
                failed.add(member);
                return true;
            });
        } finally {
            lock.unlock();
        }
        failed.forEach(member -> member.result.failed(new NotOpenException(shard.shard)));
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
            producers.close(failed);
            failed.addAll(inDoubt);
            inDoubt.clear();
            pending.clear();
        } finally {
            lock.unlock();
            committing.unlock();
        }
        for (Member member : failed) {
            member.result.failed(new NotOpenException(member.shard));
        }
    }
}
