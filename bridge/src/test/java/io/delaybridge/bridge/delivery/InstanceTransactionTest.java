package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The instance's two producers take turns: a send made while a commit runs is not held by it, goes into the other
 * producer's transaction, and is settled by that transaction alone. Kafka's {@link MockProducer} stands in for the
 * producers (pure bookkeeping: which send a commit settles); a latch holds a commit open in mid-flight.
 */
class InstanceTransactionTest {

    private static final String LOG_TOPIC = "log";

    /** A producer whose commits wait for {@link #release} once {@link #hold} is set. */
    static class HeldProducer extends MockProducer<byte[], byte[]> {
        final CountDownLatch committing = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean hold;

        HeldProducer() {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        final CountDownLatch flushing = new CountDownLatch(1);
        final CountDownLatch releaseFlush = new CountDownLatch(1);
        volatile boolean holdFlush;

        @Override
        public void flush() {
            if (holdFlush) {
                holdFlush = false;
                held(flushing, releaseFlush, "flush");
            }
            super.flush();
        }

        @Override
        public void commitTransaction() {
            if (hold) {
                held(committing, release, "commit");
            }
            super.commitTransaction();
        }

        /** Says {@code reached}, then waits until the test counts {@code release} down (30 s at most). */
        private static void held(CountDownLatch reached, CountDownLatch release, String what) {
            reached.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the " + what);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** A producer whose records of the delivered log fail, as one that expired unsent does. */
    static final class LogFailingProducer extends HeldProducer {
        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            if (!LOG_TOPIC.equals(record.topic())) {
                return super.send(record, callback);
            }
            TimeoutException error = new TimeoutException("Expiring 1 record(s) for log-3: 30001 ms has passed");
            if (callback != null) {
                callback.onCompletion(null, error);
            }
            return CompletableFuture.failedFuture(error);
        }
    }

    /** The delivered log in memory: the last record written by a committed transaction. */
    static final class MemoryLog implements ShardLog {
        volatile DeliveredRecord.Contents last = DeliveredRecord.Contents.EMPTY;

        @Override
        public DeliveredRecord.Contents latest(int shard) {
            return last;
        }

        @Override
        public Read read(int shard, long from) {
            return new Read(last, 0);
        }

        @Override
        public ProducerRecord<byte[], byte[]> record(int shard, int slot, byte[] value) {
            return new ProducerRecord<>(LOG_TOPIC, shard, null, value);
        }
    }

    /** What each send's result heard. */
    static final class Outcomes {
        final Map<String, Object> heard = new ConcurrentHashMap<>();

        Delivery.Result of(String id) {
            return new Delivery.Result() {
                @Override
                public void delivered(long timestamp) {
                    heard.put(id, "delivered");
                }

                @Override
                public void failed(Exception error) {
                    heard.put(id, error);
                }
            };
        }
    }

    private final MemoryLog log = new MemoryLog();
    private final Outcomes outcomes = new Outcomes();
    private final TransactionShard shard = new TransactionShard(3, () -> -1);
    private final TransactionShard other = new TransactionShard(4, () -> -1);
    private final InstanceTransaction transaction =
            new InstanceTransaction(log, () -> null, n -> n == 3 ? shard : n == 4 ? other : null);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void aSendDuringACommitGoesIntoTheOtherProducersTransactionAndOnlyThatOneSettlesIt() throws Exception {
        HeldProducer first = new HeldProducer();
        HeldProducer second = new HeldProducer();
        open(first, second);
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        first.hold = true;
        CompletableFuture<Void> commit = CompletableFuture.runAsync(transaction::commit, threads);
        assertTrue(first.committing.await(30, TimeUnit.SECONDS), "the commit reached the broker call");

        // the commit is in mid-flight: a send goes on without waiting for it (the test would hang here otherwise)
        CompletableFuture<Void> send = CompletableFuture.runAsync(
                () -> transaction.send(shard, message("b"), target("b"), outcomes.of("b")), threads);
        send.get(30, TimeUnit.SECONDS);
        assertTrue(second.transactionInFlight(), "b went into the other producer's transaction");
        assertEquals(List.of("a"), keysTo(first, "target"));
        assertEquals(List.of("b"), keysTo(second, "target"));
        assertFalse(outcomes.heard.containsKey("a"), "a is settled only once its commit ends");

        first.release.countDown();
        commit.get(30, TimeUnit.SECONDS);
        assertEquals("delivered", outcomes.heard.get("a"));
        assertFalse(outcomes.heard.containsKey("b"), "b's transaction has not committed");
        assertEquals(List.of("a"), listed(first));

        transaction.commit();
        assertEquals("delivered", outcomes.heard.get("b"));
        assertTrue(second.transactionCommitted());
        // a is not acked yet: the next record lists b alone and points to the record that lists a
        assertEquals(List.of("b"), listed(second));
        assertEquals(last(first).partition(), last(second).partition());
        assertEquals(0, readFrom(second), "b's record points to a's, the first producer's first record");
        assertTrue(readFrom(first) < 0, "the shard's first record lists all it remembers and points nowhere");

        // and the turns go on: the next send goes to the first producer again
        transaction.send(shard, message("c"), target("c"), outcomes.of("c"));
        assertEquals(List.of("a", "c"), keysTo(first, "target"));
    }

    @Test
    void theOtherProducerTakesSendsOnlyOnceTheEarlierSendsAreAcknowledged() throws Exception {
        HeldProducer first = new HeldProducer();
        HeldProducer second = new HeldProducer();
        open(first, second);
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        first.holdFlush = true;
        CompletableFuture<Void> commit = CompletableFuture.runAsync(transaction::commit, threads);
        assertTrue(first.flushing.await(30, TimeUnit.SECONDS), "the commit waits for a's acknowledgement");

        Thread sender =
                new Thread(() -> transaction.send(shard, message("b"), target("b"), outcomes.of("b")), "sender");
        sender.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sender.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.WAITING, sender.getState(), "b waits for the turn");
        assertEquals(List.of(), keysTo(second, "target"), "b is not sent before a is acknowledged");

        first.releaseFlush.countDown();
        sender.join(TimeUnit.SECONDS.toMillis(30));
        commit.get(30, TimeUnit.SECONDS);
        assertEquals(List.of("b"), keysTo(second, "target"));
        assertEquals("delivered", outcomes.heard.get("a"));
    }

    @Test
    void aFailedCommitLeavesItsSendsAndTheOtherProducersInDoubtUntilTheLogSaysWhatCommitted() throws Exception {
        HeldProducer first = new HeldProducer();
        HeldProducer second = new HeldProducer();
        open(first, second);
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        first.hold = true;
        first.commitTransactionException = new KafkaException("the broker did not answer");
        CompletableFuture<Void> commit = CompletableFuture.runAsync(transaction::commit, threads);
        assertTrue(first.committing.await(30, TimeUnit.SECONDS));
        transaction.send(shard, message("b"), target("b"), outcomes.of("b"));
        first.release.countDown();
        commit.get(30, TimeUnit.SECONDS);

        assertFalse(transaction.isOpen(shard), "both producers closed");
        assertTrue(outcomes.heard.isEmpty(), "neither a nor b is decided before the shard is opened again");
        transaction.send(shard, message("a"), target("a"), outcomes.of("again"));
        assertInstanceOf(InstanceTransaction.NotOpenException.class, outcomes.heard.get("again"));

        // the commit went through after all; b's transaction was aborted by the fence
        log.last = new DeliveredRecord.Contents(List.of(message("a")), -1);
        open(new HeldProducer(), new HeldProducer());
        assertEquals("delivered", outcomes.heard.get("a"));
        assertInstanceOf(InstanceTransaction.AbortedException.class, outcomes.heard.get("b"));
        assertTrue(shard.delivered.wasDelivered("a", "intake/3/a"));
        assertFalse(shard.delivered.wasDelivered("b", "intake/3/b"));
    }

    /**
     * A transaction commits only once its records of the delivered log are acknowledged: one that failed aborts it and
     * its sends are retried, so that no message is delivered that no record lists (the shard's next owner would send it
     * again).
     */
    @Test
    void aTransactionWhoseDeliveredLogRecordFailedAbortsAndItsSendsAreRetried() {
        LogFailingProducer first = new LogFailingProducer();
        open(first, new HeldProducer());
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        transaction.commit();

        assertFalse(first.transactionCommitted(), "not committed without its record of the delivered log");
        assertTrue(first.transactionAborted());
        assertInstanceOf(InstanceTransaction.AbortedException.class, outcomes.heard.get("a"), "retried, not delivered");
        assertFalse(shard.delivered.wasDelivered("a", "intake/3/a"));
    }

    /**
     * Kafka's producer refuses every transactional call after an invalid state transition (a batch that expired while
     * its transaction committed): the session ends, the send is held back (not failed as a delivery), and the shard,
     * opened again with fresh producers, sends on.
     */
    @Test
    void aProducerThatRefusesToBeginEndsTheSessionAndFreshProducersSendOn() {
        HeldProducer first = new HeldProducer();
        HeldProducer second = new HeldProducer();
        open(first, second);
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        transaction.commit(); // the second producer gathers now
        assertEquals("delivered", outcomes.heard.get("a"));
        second.beginTransactionException = new IllegalStateException(
                "cannot execute transactional method because of previous invalid state transition attempt");

        transaction.send(shard, message("b"), target("b"), outcomes.of("b"));
        assertInstanceOf(InstanceTransaction.NotOpenException.class, outcomes.heard.get("b"));
        assertInstanceOf(HeldBackException.class, outcomes.heard.get("b"), "retried, never deadlettered for it");
        assertFalse(transaction.hasSession(), "both producers closed");
        assertTrue(first.closed() && second.closed());

        HeldProducer fresh = new HeldProducer();
        open(fresh, new HeldProducer());
        transaction.send(shard, message("b"), target("b"), outcomes.of("b"));
        transaction.commit();
        assertEquals("delivered", outcomes.heard.get("b"));
        assertEquals(List.of("b"), keysTo(fresh, "target"));
    }

    @Test
    void oneTransactionCarriesEveryShardsSendsAndARecordOfTheDeliveredLogForEach() {
        HeldProducer first = new HeldProducer();
        open(first, new HeldProducer());
        transaction.openShard(other);
        transaction.send(shard, message("a"), target("a"), outcomes.of("a"));
        transaction.send(other, message("z"), target("z"), outcomes.of("z"));
        transaction.commit();

        assertEquals("delivered", outcomes.heard.get("a"));
        assertEquals("delivered", outcomes.heard.get("z"));
        assertEquals(List.of("a", "z"), keysTo(first, "target"), "one transaction for both shards");
        assertEquals(List.of("a"), listedFor(first, 3), "shard 3's record lists its own deliveries");
        assertEquals(List.of("z"), listedFor(first, 4), "shard 4's record lists its own deliveries");

        // a shard closed sends nothing more; the other goes on in the same session
        transaction.closeShard(other);
        transaction.send(other, message("y"), target("y"), outcomes.of("y"));
        assertInstanceOf(InstanceTransaction.NotOpenException.class, outcomes.heard.get("y"));
        assertTrue(transaction.isOpen(shard));
    }

    /**
     * A commit asks for each shard's intake offsets in ascending shard order, whatever order the sends came in: the
     * intake's plain commit takes the same offset lanes in that order, and a transaction taking them in another could
     * wait for a lane while the intake waits for one the transaction holds.
     */
    @Test
    void aCommitAsksForTheShardsIntakeOffsetsInAscendingShardOrder() {
        List<Integer> asked = new ArrayList<>();
        InstanceTransaction ordered = new InstanceTransaction(
                log,
                () -> (shardAsked, origins) -> {
                    asked.add(shardAsked);
                    return null;
                },
                n -> n == 3 ? shard : n == 4 ? other : null);
        ordered.openSession(List.of(new HeldProducer(), new HeldProducer()));
        ordered.openShard(other);
        ordered.openShard(shard);
        ordered.send(other, message("z"), target("z"), outcomes.of("z"));
        ordered.send(shard, message("a"), target("a"), outcomes.of("a"));
        ordered.commit();
        assertEquals(List.of(3, 4), asked);
        assertEquals("delivered", outcomes.heard.get("a"));
    }

    private void open(HeldProducer first, HeldProducer second) {
        transaction.openSession(List.of(first, second));
        transaction.openShard(shard);
    }

    /** The ids the last delivered-log record of {@code shard} that {@code producer} committed lists. */
    private static List<String> listedFor(MockProducer<byte[], byte[]> producer, int shard) {
        List<ProducerRecord<byte[], byte[]>> records = producer.history().stream()
                .filter(r -> r.topic().equals(LOG_TOPIC) && r.partition() == shard)
                .toList();
        return DeliveredRecord.decode(records.get(records.size() - 1).value()).messages().stream()
                .map(Sends.Message::id)
                .sorted()
                .toList();
    }

    private static Sends.Message message(String id) {
        return new Sends.Message(id, "intake/3/" + id, 0);
    }

    private static ProducerRecord<byte[], byte[]> target(String key) {
        return new ProducerRecord<>("target", 0, key.getBytes(), key.getBytes());
    }

    private static List<String> keysTo(MockProducer<byte[], byte[]> producer, String topic) {
        List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(producer.history());
        all.addAll(producer.uncommittedRecords());
        return all.stream()
                .filter(r -> r.topic().equals(topic))
                .map(r -> new String(r.key()))
                .distinct()
                .sorted()
                .toList();
    }

    /** The last delivered-log record that {@code producer} committed. */
    private static ProducerRecord<byte[], byte[]> last(MockProducer<byte[], byte[]> producer) {
        List<ProducerRecord<byte[], byte[]>> records = producer.history().stream()
                .filter(r -> r.topic().equals(LOG_TOPIC))
                .toList();
        return records.get(records.size() - 1);
    }

    private static long readFrom(MockProducer<byte[], byte[]> producer) {
        return DeliveredRecord.decode(last(producer).value()).readFrom();
    }

    /** The ids the last delivered-log record that {@code producer} committed lists. */
    private static List<String> listed(MockProducer<byte[], byte[]> producer) {
        return DeliveredRecord.decode(last(producer).value()).messages().stream()
                .map(Sends.Message::id)
                .sorted()
                .toList();
    }
}
