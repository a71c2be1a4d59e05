package io.delaybridge.bridge;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.intake.FarPolicy;
import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.bridge.intake.IntakeSettings;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.thaw.ThawMetrics;
import org.apache.kafka.clients.producer.Producer;

/**
 * The pipeline's parts as {@link DelayBridgeApplication} built them, for the operations wired beside them
 * ({@link AdminPart}): the store, the pump, the intake, the far policy, the thaw's metrics, the
 * plain producer, delivery and the intake's settings.
 */
record PipelineParts(
        RedisDelayStore store,
        Pump pump,
        IntakeLoop intake,
        FarPolicy far,
        ThawMetrics thawMetrics,
        Producer<byte[], byte[]> producer,
        Delivery delivery,
        IntakeSettings intakeSettings) {}
