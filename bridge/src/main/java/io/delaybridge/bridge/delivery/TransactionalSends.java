package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once into Kafka ({@code delivery.exactlyOnce}): each shard's deliveries and deadletter records go out in
 * transactions of a producer whose {@code transactional.id} belongs to the shard ({@code <prefix>-shard-<n>}), not to
 * the instance, so the shard's next owner's {@code initTransactions} fences the previous owner's producer wherever it
 * still runs (a zombie: paused past its lease, then resumed), on top of the Redis epochs.
 *
 * <p>Each shard has two producers that take turns ({@code <prefix>-shard-<n>} and {@code <prefix>-shard-<n>-b}, both
 * fenced by the next owner): one gathers the shard's sends while the other's transaction commits, so a send never
 * waits for a commit. A transaction holds the shard's sends of one commit interval, plus one record in the delivered
 * log ({@link DeliveredLog}) listing what it delivered and what earlier transactions delivered whose acks Redis has not
 * confirmed. Every {@code commitIntervalMillis} the commit thread commits every shard's gathered transaction, all at
 * once; only
 * then are the sends reported delivered, and the pump acks them in Redis. A shard's new owner (after a crash, a kill,
 * a fence) opens the shard before its first claim: fences, reads the last committed record, and acks what it lists
 * when it claims it instead of sending it again ({@link #wasDelivered}). What an aborted or unfinished transaction held is sent again; a
 * {@code read_committed} consumer never saw it.
 *
 * <p>The intake's express records of partition n (their default ids live in shard n) go out in shard n's
 * transactions too, and a transaction commits the intake offsets that {@link TransactionOffsets} offers for them:
 * delivery and offset commit are one atomic step, and the same {@code transactional.id} fences both.
 */
public final class TransactionalSends implements Sends, ExactlyOnce, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalSends.class);

    private final Function<String, Producer<byte[], byte[]>> producers;
    private final String transactionalIdPrefix;
    private final DeliveredLog log;
    private final long commitIntervalMillis;
    private final Map<Integer, ShardTransaction> shards = new ConcurrentHashMap<>();
    private final IntakeCommits intakeCommits;
    private final String intakeTopic;
    private final Thread committer;
    /** Opens shards and commits their transactions in parallel: their broker calls are waits. Threads end when idle. */
    private final ExecutorService workers = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "delay-shard-worker");
        thread.setDaemon(true);
        return thread;
    });

    private volatile boolean running = true;
    /** The intake's offsets that transactions commit with its express records; null until the intake sets it. */
    private volatile TransactionOffsets offsets;

    /**
     * @param producers             makes a transactional producer with the given {@code transactional.id}
     * @param transactionalIdPrefix shard n's producer is {@code <prefix>-shard-<n>}: the same in every instance
     * @param intakeTopic           shard n holds the messages of this topic's partition n
     * @param commitIntervalMillis  how long a transaction gathers sends before it commits
     */
    public TransactionalSends(
            Function<String, Producer<byte[], byte[]>> producers,
            String transactionalIdPrefix,
            String intakeTopic,
            DeliveredLog log,
            IntakeCommits intakeCommits,
            long commitIntervalMillis) {
        this.intakeCommits = intakeCommits;
        this.intakeTopic = intakeTopic;
        this.producers = producers;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.log = log;
        this.commitIntervalMillis = Math.max(1, commitIntervalMillis);
        this.committer = new Thread(this::commitLoop, "delay-commit");
        this.committer.setDaemon(true);
        this.committer.start();
    }

    /** The transactional ids of shard {@code shard}'s two producers, which take turns ({@link ShardTransaction}). */
    public List<String> transactionalIds(int shard) {
        String id = transactionalIdPrefix + "-shard-" + shard;
        return List.of(id, id + "-b");
    }

    @Override
    public void open(int shard) {
        ShardTransaction transaction = shards.computeIfAbsent(shard, this::transaction);
        if (!transaction.isOpen()) {
            List<Producer<byte[], byte[]>> fresh = new ArrayList<>();
            try {
                for (String id : transactionalIds(shard)) {
                    fresh.add(producers.apply(id));
                }
            } catch (RuntimeException e) {
                fresh.forEach(producer -> producer.close(java.time.Duration.ZERO));
                throw e;
            }
            transaction.open(fresh);
        }
    }

    /** Opens {@code shards} in parallel: each {@code initTransactions} fences at once, none waits for another's. */
    @Override
    public Map<Integer, RuntimeException> open(Collection<Integer> shards) {
        Map<Integer, CompletableFuture<Void>> opening = new HashMap<>();
        for (int shard : shards) {
            opening.put(shard, CompletableFuture.runAsync(() -> open(shard), workers));
        }
        Map<Integer, RuntimeException> failed = new HashMap<>();
        opening.forEach((shard, done) -> {
            try {
                done.join();
            } catch (CompletionException e) {
                failed.put(shard, e.getCause() instanceof RuntimeException cause ? cause : e);
            }
        });
        return failed;
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
                ShardTransaction transaction = this.shards.get(shard);
                long open = transaction == null ? -2 : transaction.openIntakeFloor();
                long floor = open != -2 ? open : log.latest(shard).intakeFloor();
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
        ShardTransaction transaction = shards.get(shard);
        return transaction != null && transaction.isOpen();
    }

    @Override
    public void send(int shard, Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction == null) {
            result.failed(new ShardTransaction.NotOpenException(shard));
            return;
        }
        transaction.send(message, record, result);
    }

    @Override
    public boolean wasDelivered(int shard, String id, String origin) {
        ShardTransaction transaction = shards.get(shard);
        return transaction != null && transaction.delivered.wasDelivered(id, origin);
    }

    @Override
    public void acked(int shard, Iterable<String> ids, boolean allDeleted) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction != null) {
            transaction.delivered.acked(ids, allDeleted);
        }
    }

    @Override
    public void released(int shard, String id) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction != null) {
            transaction.delivered.released(id);
        }
    }

    @Override
    public void retried(int shard, String id) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction != null) {
            transaction.delivered.retried(id);
        }
    }

    @Override
    public void claimed(int shard, Iterable<String> ids, boolean allDue) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction != null) {
            transaction.delivered.claimed(ids, allDue);
        }
    }

    @Override
    public List<String> toAsk(int shard) {
        ShardTransaction transaction = shards.get(shard);
        return transaction == null ? List.of() : transaction.delivered.toAsk();
    }

    @Override
    public void stored(int shard, Collection<String> asked, java.util.function.Predicate<String> stored) {
        ShardTransaction transaction = shards.get(shard);
        if (transaction != null) {
            transaction.delivered.stored(asked, stored);
        }
    }

    @Override
    public void readAgain(int shard, long from, IntakeOrigin last) {
        // kept even before the shard is opened: what this owner delivers of the range later must outlive its copies
        shards.computeIfAbsent(shard, this::transaction).delivered.readAgain(from, last);
    }

    @Override
    public void close(int shard, boolean commit) {
        ShardTransaction transaction = shards.remove(shard);
        if (transaction != null) {
            transaction.close(commit);
        }
    }

    private ShardTransaction transaction(int shard) {
        return new ShardTransaction(shard, log, () -> offsets, () -> intakeCommits.committed(intakeTopic, shard));
    }

    /** Commits every open transaction now. */
    @Override
    public void flush() {
        shards.values().forEach(ShardTransaction::commit);
    }

    private void commitLoop() {
        while (running) {
            try {
                TimeUnit.MILLISECONDS.sleep(commitIntervalMillis);
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            }
            intakeCommits.refresh();
            // every shard at once, each on a worker: a read_committed reader waits for one commit, not for the 16
            // commits of a round one after the other (~300 ms a round on a busy 2-core machine, 50 ms gathering
            // included). A transaction carrying intake offsets holds its partition's lane of the intake's offsets
            // until it ends: the intake's plain commit, which needs every lane, now waits for one commit at most.
            List<CompletableFuture<Void>> round = new ArrayList<>();
            for (ShardTransaction transaction : shards.values()) {
                round.add(CompletableFuture.runAsync(() -> commit(transaction), workers));
            }
            round.forEach(CompletableFuture::join); // commit reports its own failures
        }
    }

    /** One shard's turn in a commit round: forget what may be forgotten, then commit what it gathered. */
    private void commit(ShardTransaction transaction) {
        try {
            transaction.prune(intakeCommits, this::belowFloor);
            transaction.commit();
        } catch (RuntimeException e) {
            LOG.error("Committing shard {} failed", transaction.shard, e);
        }
    }

    /**
     * Whether the intake record {@code origin} lies below the floor of its partition's shard as a committed record of
     * the delivered log holds it, so no owner reads it again. A shard this instance does not own says nothing (its
     * owner records its floor within a commit interval of the group's offset); neither does a record of another topic.
     */
    private boolean belowFloor(String origin) {
        IntakeOrigin parsed = IntakeOrigin.parse(origin);
        if (parsed == null || !parsed.topic().equals(intakeTopic)) {
            return true;
        }
        ShardTransaction owner = shards.get(parsed.partition());
        return owner == null || owner.belowFloor(parsed.offset());
    }

    /** Commits what is open and closes every producer and the log's reader. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        committer.interrupt();
        committer.join(TimeUnit.SECONDS.toMillis(10));
        for (Integer shard : shards.keySet()) {
            close(shard, true);
        }
        workers.shutdownNow();
        log.close();
    }
}
