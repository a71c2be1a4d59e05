package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.delivery.Committer;
import io.delaybridge.bridge.delivery.DeliveredLog;
import io.delaybridge.bridge.delivery.DeliveredLogTopic;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.IntakeCommits;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TransactionalSends;
import io.delaybridge.bridge.store.TransactionWriters;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** How deliveries go out: settings under {@code delivery:} (docs/configuration.md). */
@SettingsCheck
public class DeliveryFactory {

    @Setting("Deliver messages in Kafka transactions of producers that belong to the instance, fenced by each "
            + "shard's next owner: a `read_committed` consumer of a target sees each record once across crashes (reliability.md, \"Exactly "
            + "once\"), express records too: their intake offsets commit in the transactions that deliver them. Costs "
            + "lateness and throughput.")
    private boolean exactlyOnce;

    @NotNull
    @Setting(
            value =
                    "With `exactlyOnce`: how often the instance's transaction commits, counted from the start of the last "
                            + "commit (after a commit that took longer than half of this, from its end, as long as it "
                            + "took, up to this); the other producer gathers sends meanwhile.",
            min = "1ms",
            max = "5s")
    private Duration commitInterval = Duration.milliseconds(50);

    /**
     * The delivery both paths use. Plain: through {@code producer}, the shared idempotent producer. Exactly once: a
     * pair of transactional producers per instance ({@code transactional.id} {@code
     * <groupId>-<intakeTopic>-<instanceId>-a} and {@code -b}), the store's registry of each shard's writers, and the
     * delivered log {@code <intakeTopic>-delivered} (created here, compacted, one partition per shard). The caller
     * closes the delivery if it is {@link Delivery#exactlyOnce}.
     */
    public Delivery build(
            KafkaFactory kafka,
            Admin admin,
            Producer<byte[], byte[]> producer,
            TargetCatalog catalog,
            DeliveryLimits limits,
            TransactionWriters writers,
            Time time)
            throws Exception {
        if (!exactlyOnce) {
            return Delivery.plain(producer, catalog, kafka.getDeadletterTopic());
        }
        String logTopic = kafka.getIntakeTopic() + "-delivered";
        DeliveredLogTopic.prepare(
                admin,
                logTopic,
                limits.shards(),
                kafka.getReplicationFactor() < 0
                        ? java.util.Optional.empty()
                        : java.util.Optional.of((short) kafka.getReplicationFactor()),
                time);
        DeliveredLog log = new DeliveredLog(logTopic, kafka.consumerProperties(), 30_000, time);
        // a killed owner's open transaction holds back read_committed consumers of its targets until the next owner
        // fences it or the broker aborts it: keep its timeout short, and under the lease
        long transactionTimeout = Math.max(5_000, Math.min(limits.leaseMillis() / 2, 15_000));
        TransactionalSends sends = new TransactionalSends(
                id -> new KafkaProducer<>(
                        transactionalProperties(kafka, limits.maxRecordBytes(), transactionTimeout, id),
                        new ByteArraySerializer(),
                        new ByteArraySerializer()),
                new TransactionalSends.Writer(
                        kafka.getGroupId() + "-" + kafka.getIntakeTopic(),
                        kafka.resolvedInstanceId(),
                        new StoreWriterRegistry(writers)),
                kafka.getIntakeTopic(),
                log,
                new IntakeCommits(admin, kafka.getGroupId(), 250, time),
                new Committer(commitInterval.toMilliseconds(), time));
        return Delivery.exactlyOnce(sends, catalog, kafka.getDeadletterTopic());
    }

    /**
     * The properties of the transactional producer {@code id}: the delivery producer's ({@link
     * KafkaFactory#producerProperties}), its id as {@code transactional.id} and {@code client.id}, and the transaction
     * timeout.
     */
    Properties transactionalProperties(
            KafkaFactory kafka, int maxRecordBytes, long transactionTimeoutMillis, String id) {
        Properties properties = kafka.producerProperties(maxRecordBytes);
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeoutMillis));
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, id);
        return properties;
    }

    @JsonProperty
    public boolean isExactlyOnce() {
        return exactlyOnce;
    }

    @JsonProperty
    public void setExactlyOnce(boolean exactlyOnce) {
        this.exactlyOnce = exactlyOnce;
    }

    @JsonProperty
    public Duration getCommitInterval() {
        return commitInterval;
    }

    @JsonProperty
    public void setCommitInterval(Duration commitInterval) {
        this.commitInterval = commitInterval;
    }
}
