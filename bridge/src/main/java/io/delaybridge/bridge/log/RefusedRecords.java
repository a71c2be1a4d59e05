package io.delaybridge.bridge.log;

import io.delaybridge.bridge.delivery.DeliveryRecords;
import io.delaybridge.schemas.ContractViolation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes the intake records that break the header contract to the deadletter topic, with their reason. */
public final class RefusedRecords {

    private static final Logger LOG = LoggerFactory.getLogger(RefusedRecords.class);

    private final Producer<byte[], byte[]> producer;
    private final String deadletterTopic;
    private final long timeoutSeconds;

    public RefusedRecords(Producer<byte[], byte[]> producer, String deadletterTopic, long timeoutSeconds) {
        this.producer = producer;
        this.deadletterTopic = deadletterTopic;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Sends a poll's refused records and waits until the deadletter topic holds them all. */
    public void write(List<ConsumerRecord<byte[], byte[]>> rejected, List<ContractViolation> reasons)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (rejected.isEmpty()) {
            return;
        }
        List<Future<RecordMetadata>> sends = new ArrayList<>(rejected.size());
        for (int i = 0; i < rejected.size(); i++) {
            ContractViolation reason = reasons.get(i);
            ConsumerRecord<byte[], byte[]> record = rejected.get(i);
            LOG.debug(
                    "Refused intake record {}-{}@{}: {} {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    reason.code(),
                    reason.getMessage());
            sends.add(producer.send(
                    DeliveryRecords.rejectedIntake(deadletterTopic, record, reason.code(), reason.getMessage())));
        }
        for (Future<RecordMetadata> send : sends) {
            send.get(timeoutSeconds, TimeUnit.SECONDS);
        }
    }
}
