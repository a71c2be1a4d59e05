package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * What carries {@link Delivery}'s records to Kafka: one shared producer ({@link PlainSends}), or one transactional
 * producer pair per instance ({@link TransactionalSends}). It only sends; what exactly once keeps of each message is
 * {@link ExactlyOnce}'s, and {@link Delivery} alone tells it.
 */
interface Sends {

    /**
     * Which stored message a record delivers: its id, its origin (the intake record it came from, as the envelope and
     * the delivered log write it), its due time, and that origin read as a position ({@code place}; null if it is not
     * one), read once here rather than each time a commit asks where the record lies.
     */
    record Message(String id, String origin, long dueAt, IntakeOrigin place) {

        /** The message {@code id} from {@code origin}, due at {@code dueAt}. */
        Message(String id, String origin, long dueAt) {
            this(id, origin, dueAt, IntakeOrigin.parse(origin));
        }
    }

    /**
     * Sends {@code record} for {@code message} of {@code shard}; its outcome goes to {@code result} (for a
     * transactional send, once its transaction committed or aborted). May throw if the send cannot even start.
     */
    void send(int shard, Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result);

    /** Waits until every send so far is answered (and, transactional, committed). */
    void flush();

    /** The Kafka client metrics of each producer that carries the records now (none while none is open). */
    List<Map<MetricName, ? extends Metric>> producerMetrics();
}
