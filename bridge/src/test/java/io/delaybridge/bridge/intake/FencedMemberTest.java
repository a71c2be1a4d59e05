package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class FencedMemberTest {

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void twoFencesRejoinAThirdSoonAfterStops() {
        FencedMember fences = new FencedMember();
        assertTrue(fences.rejoin(0), "a coordinator that lost track of a lone member fences it");
        assertTrue(fences.rejoin(MINUTE), "and fences it again after the next broker crash");
        assertFalse(fences.rejoin(MINUTE + 10 * SECOND), "a third within two minutes: another instance holds the id");
    }

    @Test
    void twinsTradingTheIdStopWithinHalfAMinute() {
        FencedMember fences = new FencedMember();
        assertTrue(fences.rejoin(0));
        assertTrue(fences.rejoin(10 * SECOND));
        assertFalse(fences.rejoin(20 * SECOND));
    }

    @Test
    void fencesFarApartEachRejoin() {
        FencedMember fences = new FencedMember();
        assertTrue(fences.rejoin(0));
        assertTrue(fences.rejoin(MINUTE + 30 * SECOND));
        assertTrue(fences.rejoin(3 * MINUTE), "the first is over two minutes old");
        assertTrue(fences.rejoin(6 * MINUTE), "broker restarts minutes apart are no twin");
        assertTrue(fences.rejoin(6 * MINUTE + 5 * SECOND));
        assertFalse(fences.rejoin(6 * MINUTE + 15 * SECOND));
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
