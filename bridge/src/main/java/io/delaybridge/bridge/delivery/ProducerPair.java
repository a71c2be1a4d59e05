package io.delaybridge.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The sessions of the instance's two transactional producers ({@link InstanceTransaction}): which pair is open, which
 * of the two gathers sends, and the session's number (a shard is open only in the session it was opened in). Not
 * thread-safe: the instance transaction's lock guards it.
 */
final class ProducerPair {

    /** The two producers, null while no session is open; sends go to {@code producers[current]}. */
    private TurnProducer[] producers;

    private int current;
    /** Counts the sessions: a shard opened in an earlier one may not send. */
    private long session;

    /** Whether a session is open. */
    boolean isOpen() {
        return producers != null;
    }

    /** The current session's number; 0 before the first. */
    long session() {
        return session;
    }

    /** Begins a session with {@code fresh}, two producers whose {@code initTransactions} returned. */
    void begin(List<Producer<byte[], byte[]>> fresh) {
        producers = fresh.stream().map(TurnProducer::new).toArray(TurnProducer[]::new);
        current = 0;
        session++;
    }

    /** The producer that gathers sends; the session must be open. */
    TurnProducer gathering() {
        return producers[current];
    }

    /** The producer that gathers sends, if its transaction has any; else null (or no session is open). */
    TurnProducer gatheringWithSends() {
        return producers == null || !producers[current].gathering() ? null : producers[current];
    }

    /** Sends go to the other producer from now on: the one gathering had its transaction taken for a commit. */
    void turn() {
        current = 1 - current;
    }

    /** Ends the session: closes both producers, adding the sends they gathered to {@code into}. */
    void close(List<TurnProducer.Member> into) {
        if (producers == null) {
            return;
        }
        for (TurnProducer producer : producers) {
            TurnProducer.Gathered open = producer.take();
            if (open != null) {
                into.addAll(open.members);
            }
            producer.close();
        }
        producers = null;
    }

    /** The Kafka client metrics of the session's producers; none while no session is open. */
    List<Map<MetricName, ? extends Metric>> metrics() {
        List<Map<MetricName, ? extends Metric>> metrics = new ArrayList<>();
        if (producers != null) {
            for (TurnProducer producer : producers) {
                metrics.add(producer.producer.metrics());
            }
        }
        return metrics;
    }
}
