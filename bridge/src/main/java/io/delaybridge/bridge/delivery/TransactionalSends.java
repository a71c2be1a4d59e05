package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once into Kafka ({@code delivery.exactlyOnce}): the deliveries and deadletter records of every shard this
 * instance owns go out in the transactions of one pair of producers whose {@code transactional.id}s belong to the
 * instance ({@code <prefix>-<instance>-a} and {@code -b}, taking turns: one gathers sends while the other's transaction
 * commits, {@link InstanceTransaction}). At each turn of the {@link Committer} the commit thread commits what was gathered:
 * one transaction for all shards, with one record of the delivered log ({@link DeliveredLog}) per shard it delivered
 * for, listing what the shard's committed transactions delivered whose acks Redis has not confirmed; only then are the
 * sends reported delivered, and the pump acks them in Redis.
 *
 * <p>Fencing. A restart of the instance (same instance id) fences its killed run's producers when it opens its session:
 * their open transaction aborts at once. A shard's owner, each time it opens the shard (at its assignment, and again
 * once its epoch is taken or proved), records itself as a writer of the shard's transactions ({@link WriterRegistry})
 * and fences every other writer recorded ({@code initTransactions} with each of their ids: an open transaction aborts,
 * a commit under way completes, and their later commits fail), then reads the shard's delivered log from where its last
 * read ended and acks, instead of sending again, what a committed transaction delivered ({@link #wasDelivered}). A
 * fenced instance opens a new session and must open each shard again, which it does only after proving its epoch in
 * Redis: it records itself before it proves, so either the new owner, which took the epoch before it read the
 * registry, saw it and fences it again, or its proof fails. Any transaction carrying a shard's records therefore either
 * committed before the shard's current owner read its log, or aborts.
 *
 * <p>The intake's express records of partition n go out in the same transactions, which commit the intake offsets
 * {@link TransactionOffsets} offers for them: delivery and offset commit are one atomic step.
 */
public final class TransactionalSends implements Sends, ExactlyOnce, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalSends.class);

    private final Function<String, Producer<byte[], byte[]>> producers;
    private final String transactionalIdPrefix;
    private final String instance;
    private final WriterRegistry writers;
    private final DeliveredLog log;
    private final Map<Integer, TransactionShard> shards = new ConcurrentHashMap<>();
    private final InstanceTransaction transaction;
    private final IntakeCommits intakeCommits;
    private final String intakeTopic;
    private final Committer committer;
    /** Opens shards in parallel: their broker calls are waits. */
    private final ParallelOpen opening = new ParallelOpen();

    /** The intake's offsets that transactions commit with its express records; null until the intake sets it. */
    private volatile TransactionOffsets offsets;

    /**
     * Who this instance is as a writer of transactions.
     *
     * @param transactionalIdPrefix the instance's producers are {@code <prefix>-<instance>-a} and {@code -b}
     * @param instance              this instance's id, the same across its restarts and unique in the service
     * @param registry              who may have written transactions of a shard
     */
    public record Writer(String transactionalIdPrefix, String instance, WriterRegistry registry) {}

    /**
     * @param producers             makes a transactional producer with the given {@code transactional.id}
     * @param writer                this instance as a writer of transactions
     * @param intakeTopic           shard n holds the messages of this topic's partition n
     * @param committer             the commit thread, which commits at its turns
     */
    public TransactionalSends(
            Function<String, Producer<byte[], byte[]>> producers,
            Writer writer,
            String intakeTopic,
            DeliveredLog log,
            IntakeCommits intakeCommits,
            Committer committer) {
        String transactionalIdPrefix = writer.transactionalIdPrefix();
        String instance = writer.instance();
        WriterRegistry writers = writer.registry();
        this.intakeCommits = intakeCommits;
        this.intakeTopic = intakeTopic;
        this.producers = producers;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.instance = instance;
        this.writers = writers;
        this.log = log;
        this.transaction = new InstanceTransaction(log, () -> offsets, shards::get);
        this.committer = committer;
        committer.start(this::commitTurn);
    }

    /** The transactional ids of {@code instance}'s two producers, which take turns ({@link InstanceTransaction}). */
    public List<String> transactionalIds(String instance) {
        String id = transactionalIdPrefix + "-" + instance;
        return List.of(id + "-a", id + "-b");
    }

    /**
     * Opens {@code shard} (again): the instance's session first, then every other writer of the shard's transactions
     * fenced, then its delivered log read. Called at the shard's assignment and again once its epoch is taken.
     */
    @Override
    public void open(int shard) {
        openSession();
        TransactionShard state = shards.computeIfAbsent(shard, this::state);
        List<String> others = writers.register(shard, instance);
        if (!others.isEmpty()) {
            for (String other : others) {
                fence(other);
            }
            writers.forget(shard, others);
            LOG.info("Shard {}: fenced the transactions of earlier writers {}", shard, others);
        }
        transaction.openShard(state);
    }

    /** Opens a session of the instance's producers unless one is open. */
    private synchronized void openSession() {
        if (transaction.hasSession()) {
            return;
        }
        List<Producer<byte[], byte[]>> fresh = new ArrayList<>();
        try {
            for (String id : transactionalIds(instance)) {
                fresh.add(producers.apply(id));
            }
        } catch (RuntimeException e) {
            fresh.forEach(producer -> producer.close(java.time.Duration.ZERO));
            throw e;
        }
        transaction.openSession(fresh);
        LOG.info("Transactional producers {} ready", transactionalIds(instance));
    }

    /** Fences {@code other}'s producers: whatever they hold open aborts, and they commit nothing more. */
    private void fence(String other) {
        for (String id : transactionalIds(other)) {
            Producer<byte[], byte[]> fencing = producers.apply(id);
            try {
                fencing.initTransactions();
            } finally {
                fencing.close(java.time.Duration.ZERO);
            }
        }
    }

    /** Opens {@code shards} in parallel: each fence and log read is a wait, none waits for another's. */
    @Override
    public Map<Integer, RuntimeException> open(Collection<Integer> shards) {
        return opening.run(shards, this::open);
    }

    @Override
    public void carryOffsets(TransactionOffsets offsets) {
        this.offsets = offsets;
    }

    @Override
    public Map<Integer, Long> intakeFloors(Collection<Integer> shards) {
        Map<Integer, Long> floors = new HashMap<>();
        for (int shard : shards) {
            try {
                // an open shard read its log's last record when it opened: read it again only for one that is not
                TransactionShard state = this.shards.get(shard);
                long floor = state != null && transaction.isOpen(state)
                        ? state.intakeFloor.value()
                        : log.latest(shard).intakeFloor();
                if (floor >= 0) {
                    floors.put(shard, floor);
                }
            } catch (RuntimeException e) {
                LOG.warn(
                        "Reading the intake floor of shard {} from the delivered log failed: {}",
                        shard,
                        Failures.describe(e));
            }
        }
        return floors;
    }

    @Override
    public boolean isOpen(int shard) {
        TransactionShard state = shards.get(shard);
        return state != null && transaction.isOpen(state);
    }

    @Override
    public void send(int shard, Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result) {
        TransactionShard state = shards.get(shard);
        if (state == null) {
            result.failed(new InstanceTransaction.NotOpenException(shard));
            return;
        }
        transaction.send(state, message, record, result);
    }

    @Override
    public boolean wasDelivered(int shard, String id, String origin) {
        TransactionShard state = shards.get(shard);
        if (state == null) {
            return false;
        }
        if (state.delivered.wasDelivered(id, origin)) {
            return true;
        }
        if (!state.delivered.forgottenLately(id, origin)) {
            return false;
        }
        LOG.warn(
                "Shard {}: message {} of intake record {} came back after a committed transaction delivered it and its"
                        + " id was forgotten ({}); acked, not delivered again ({} such copies so far)",
                shard,
                id,
                origin,
                state.delivered.whyForgotten(origin),
                state.delivered.caughtAfterForgetting());
        return true;
    }

    @Override
    public void acked(int shard, Iterable<String> ids, boolean allDeleted) {
        TransactionShard state = shards.get(shard);
        if (state != null) {
            state.delivered.acked(ids, allDeleted);
        }
    }

    @Override
    public void released(int shard, String id) {
        TransactionShard state = shards.get(shard);
        if (state != null) {
            state.delivered.released(id);
        }
    }

    @Override
    public void retried(int shard, String id) {
        TransactionShard state = shards.get(shard);
        if (state != null) {
            state.delivered.retried(id);
        }
    }

    @Override
    public void claimed(int shard, Iterable<String> ids, boolean allDue) {
        TransactionShard state = shards.get(shard);
        if (state != null) {
            state.delivered.claimed(ids, allDue);
        }
    }

    @Override
    public List<String> toAsk(int shard) {
        TransactionShard state = shards.get(shard);
        return state == null ? List.of() : state.delivered.toAsk();
    }

    @Override
    public void stored(int shard, Collection<String> asked, java.util.function.Predicate<String> stored) {
        TransactionShard state = shards.get(shard);
        if (state != null) {
            state.delivered.stored(asked, stored);
        }
    }

    @Override
    public void readAgain(int shard, long from, IntakeOrigin last) {
        // kept even before the shard is opened: what this owner delivers of the range later must outlive its copies
        shards.computeIfAbsent(shard, this::state).delivered.readAgain(from, last);
    }

    /**
     * {@code shard} moved away or was fenced: it sends nothing more, and what the gathering transaction holds of it
     * commits now, listed in its delivered log with what it delivered before ({@code commit} is not needed: a shard's
     * sends are never aborted alone; its next owner fences this instance and reads the log before it sends).
     */
    @Override
    public void close(int shard, boolean commit) {
        TransactionShard state = shards.get(shard);
        if (state == null) {
            return;
        }
        transaction.closeShard(state);
        transaction.commit();
        shards.remove(shard);
    }

    private TransactionShard state(int shard) {
        return new TransactionShard(shard, () -> intakeCommits.committed(intakeTopic, shard));
    }

    /** Commits the open transaction now. */
    @Override
    public void flush() {
        transaction.commit();
    }

    /** The metrics of the current session's two producers; none between sessions. */
    @Override
    public List<Map<MetricName, ? extends Metric>> producerMetrics() {
        return transaction.producerMetrics();
    }

    /** A turn of the commit thread: forgets what may be forgotten, then commits the gathering transaction. */
    private void commitTurn() {
        intakeCommits.refresh();
        for (TransactionShard state : shards.values()) {
            state.delivered.prune(place -> intakeCommits.committedPast(place) && belowFloor(place));
        }
        transaction.commit();
    }

    /**
     * Whether the intake record {@code parsed} lies below the floor of its partition's shard as a committed record of
     * the delivered log holds it, so no owner reads it again. A shard this instance does not own says nothing (its
     * owner records its floor within a commit interval of the group's offset); neither does a record of another topic.
     */
    private boolean belowFloor(IntakeOrigin parsed) {
        if (parsed == null || !parsed.topic().equals(intakeTopic)) {
            return true;
        }
        TransactionShard owner = shards.get(parsed.partition());
        return owner == null || owner.intakeFloor.passed(parsed.offset());
    }

    /** Commits what is open and closes every producer and the log's reader. */
    @Override
    public void close() throws InterruptedException {
        committer.close();
        transaction.close(true);
        shards.clear();
        opening.close();
        log.close();
    }
}
