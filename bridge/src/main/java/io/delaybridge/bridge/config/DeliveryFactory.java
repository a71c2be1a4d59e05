package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.delivery.DeliveredLog;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.IntakeCommits;
import io.delaybridge.bridge.delivery.PlainSends;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TransactionalSends;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.NotNull;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * How deliveries go out.
 *
 * <table>
 *   <caption>Settings under {@code delivery:}</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>exactlyOnce</td><td>false ({@code DELAY_EXACTLY_ONCE})</td><td>deliver each shard's messages in Kafka
 *       transactions of a producer that belongs to the shard: a {@code read_committed} consumer of a target sees
 *       every record once across crashes, kills, zombies and rebalances (docs/reliability.md, "Exactly once").
 *       Costs lateness (a record is visible once its transaction commits, up to {@code commitInterval} later) and
 *       throughput; the express path is off with it (records due when read park in Redis)</td></tr>
 *   <tr><td>commitInterval</td><td>50ms</td><td>with exactlyOnce: how long a shard's transaction gathers sends
 *       before it commits</td></tr>
 * </table>
 */
public class DeliveryFactory {

    private boolean exactlyOnce;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS,
            message = "is ${validatedValue}: use 1ms to 5s, e.g. 50ms")
    @MaxDuration(value = 5, unit = TimeUnit.SECONDS, message = "is ${validatedValue}: use 1ms to 5s, e.g. 50ms")
    private Duration commitInterval = Duration.milliseconds(50);

    /**
     * The delivery both paths use. Plain: through {@code producer}, the shared idempotent producer. Exactly once: a
     * transactional producer per shard ({@code transactional.id} {@code <groupId>-<intakeTopic>-shard-<n>}) and the
     * delivered log {@code <intakeTopic>-delivered} (created here, compacted, one partition per shard). The caller
     * closes what {@link Delivery#sends()} returns if it is {@link AutoCloseable}.
     */
    public Delivery build(KafkaFactory kafka, Admin admin, Producer<byte[], byte[]> producer, TargetCatalog catalog,
            int shards, int maxRecordBytes, long leaseMillis) throws Exception {
        if (!exactlyOnce) {
            return new Delivery(new PlainSends(producer), catalog, kafka.getDeadletterTopic());
        }
        String logTopic = kafka.getIntakeTopic() + "-delivered";
        DeliveredLog.prepare(admin, logTopic, shards, kafka.getReplicationFactor() < 0
                ? java.util.Optional.empty() : java.util.Optional.of((short) kafka.getReplicationFactor()));
        DeliveredLog log = new DeliveredLog(logTopic, kafka.consumerProperties(), 30_000);
        // a killed owner's open transaction holds back read_committed consumers of its targets until the next owner
        // fences it or the broker aborts it: keep its timeout short, and under the lease
        long transactionTimeout = Math.max(5_000, Math.min(leaseMillis / 2, 15_000));
        Properties base = kafka.producerProperties(maxRecordBytes);
        TransactionalSends sends = new TransactionalSends(id -> {
            Properties properties = new Properties();
            properties.putAll(base);
            properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
            properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeout));
            properties.put(ProducerConfig.CLIENT_ID_CONFIG, id);
            return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        }, kafka.getGroupId() + "-" + kafka.getIntakeTopic(), log,
                new IntakeCommits(admin, kafka.getGroupId(), 250), commitInterval.toMilliseconds());
        return new Delivery(sends, catalog, kafka.getDeadletterTopic());
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
