package io.delaybridge.bridge.delivery;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** Every shard's records through one shared idempotent producer: delivered at least once. */
final class PlainSends implements Sends {

    private final Producer<byte[], byte[]> producer;

    PlainSends(Producer<byte[], byte[]> producer) {
        this.producer = producer;
    }

    @Override
    public void send(int shard, Message message, ProducerRecord<byte[], byte[]> record, Delivery.Result result) {
        producer.send(record, (metadata, error) -> {
            if (error == null) {
                result.delivered(metadata.timestamp());
            } else {
                result.failed(error);
            }
        });
    }

    @Override
    public void flush() {
        producer.flush();
    }

    @Override
    public List<Map<MetricName, ? extends Metric>> producerMetrics() {
        return List.of(producer.metrics());
    }
}
