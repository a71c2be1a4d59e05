package io.delaybridge.bridge.delivery;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

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
}
