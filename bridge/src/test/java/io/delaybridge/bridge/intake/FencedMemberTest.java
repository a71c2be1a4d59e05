package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class FencedMemberTest {

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    @Test
    void theFirstFenceRejoinsASecondSoonAfterStops() {
        FencedMember fences = new FencedMember();
        assertTrue(fences.rejoin(0), "a coordinator that lost track of a lone member fences it once");
        assertFalse(fences.rejoin(4 * MINUTE), "fenced again within five minutes: another instance holds the id");
    }

    @Test
    void fencesFarApartEachRejoin() {
        FencedMember fences = new FencedMember();
        assertTrue(fences.rejoin(0));
        assertTrue(fences.rejoin(6 * MINUTE), "a broker restart an hour later is no twin");
        assertTrue(fences.rejoin(12 * MINUTE));
        assertFalse(fences.rejoin(13 * MINUTE));
    }

    @Test
    void theStopReasonNamesTheIdAndTheFix() {
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "delay-bridge");
        consumer.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "bridge-a");
        String reason = FencedMember.stopping(consumer);
        assertTrue(
                reason.contains("'delay-bridge'")
                        && reason.contains("'bridge-a'")
                        && reason.contains("kafka.instanceId")
                        && reason.contains("DELAY_INSTANCE_ID"),
                reason);
        assertTrue(FencedMember.rejoining(consumer).contains("Rejoining with a new consumer in 5 s"));
    }
}
