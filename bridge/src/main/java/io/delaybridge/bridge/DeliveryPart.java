package io.delaybridge.bridge;

import io.delaybridge.bridge.config.DeliveryLimits;
import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.delivery.TargetCatalog;
import io.delaybridge.bridge.delivery.TargetRates;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Delivery, a part of {@link DelayBridgeApplication}'s wiring: the producer, the target catalog both paths check
 * targets in, the delivery rate caps and per-target meters, and {@link Delivery} itself (with
 * {@code delivery.exactlyOnce} the instance's pair of transactional producers).
 *
 * @param producer the plain producer: the intake's deadletters, the thaw's, and every send without exactly once
 * @param rates the caps and per-target meters; a cap for the service takes its tokens from Redis
 * @param delivery every send of the pump and the express path
 */
record DeliveryPart(Producer<byte[], byte[]> producer, TargetRates rates, Delivery delivery) {

    /** How long a target topic known to exist, and its partition count, are trusted before they are looked up again. */
    private static final long TOPIC_KNOWN_MILLIS = 60_000;
    /** How long a target topic found missing is believed missing; a topic created meanwhile is seen this late. */
    private static final long TOPIC_MISSING_MILLIS = 5_000;

    /** Builds delivery for {@code partitions} shards; the producer (and exactly once's producers) close last. */
    static DeliveryPart build(Wiring wiring, RedisDelayStore store, int partitions) {
        DelayBridgeConfiguration config = wiring.config();
        int maxRecordBytes = wiring.intakeSettings().maxRecordBytes();
        Producer<byte[], byte[]> producer = new KafkaProducer<>(
                wiring.kafka().producerProperties(maxRecordBytes),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        wiring.closing(producer::close);
        TargetRates rates = config.getPump().rates(wiring.metrics(), store.sharedRates());
        // one catalog for both paths: the pump's and the intake's express sends check targets alike
        TargetCatalog targets = new TargetCatalog(
                wiring.admin(),
                wiring.clock(),
                TOPIC_KNOWN_MILLIS,
                TOPIC_MISSING_MILLIS,
                DelayBridgeApplication.ADMIN_CALL_MILLIS,
                config.getPump()
                        .missingTopics(wiring.admin(), DelayBridgeApplication.ADMIN_CALL_MILLIS, wiring.time()));
        Delivery delivery = build(wiring, producer, targets, partitions, store);
        if (delivery.exactlyOnce()) {
            wiring.closing(delivery); // stopped after the pump: its last commits go first
        }
        return new DeliveryPart(producer, rates, delivery);
    }

    private static Delivery build(
            Wiring wiring,
            Producer<byte[], byte[]> producer,
            TargetCatalog targets,
            int partitions,
            RedisDelayStore store) {
        DelayBridgeConfiguration config = wiring.config();
        try {
            return config.getDelivery()
                    .build(
                            config.getKafka(),
                            wiring.admin(),
                            producer,
                            targets,
                            new DeliveryLimits(
                                    partitions,
                                    wiring.intakeSettings().maxRecordBytes(),
                                    config.getPump().getLease().toMilliseconds()),
                            store.transactionWriters(),
                            wiring.time());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing delivery.exactlyOnce", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(
                    "delivery.exactlyOnce: could not prepare the delivered log: " + e.getMessage(), e);
        }
    }
}
