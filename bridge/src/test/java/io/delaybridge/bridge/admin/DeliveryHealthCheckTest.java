package io.delaybridge.bridge.admin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Counter;
import io.delaybridge.bridge.time.MockTime;
import org.junit.jupiter.api.Test;

class DeliveryHealthCheckTest {

    private final MockTime time = new MockTime();
    private final Counter delivered = new Counter();
    private final Counter retried = new Counter();
    private final DeliveryHealthCheck check = new DeliveryHealthCheck(delivered, retried, time, 60_000, 10);

    private boolean healthyAfter(long stepMillis) {
        time.step(stepMillis);
        return check.execute().isHealthy();
    }

    @Test
    void everySendFailingForAWindowIsUnhealthyAndOneDeliveryHealsIt() {
        assertTrue(healthyAfter(0), "nothing sent yet");
        retried.inc(9);
        assertTrue(healthyAfter(10_000), "fewer failures than the minimum");
        retried.inc(1);
        assertFalse(healthyAfter(10_000), "10 retried, 0 delivered");
        delivered.inc();
        retried.inc(50);
        assertTrue(healthyAfter(10_000), "one delivered among the failures: the target, not delivery, is failing");
    }

    @Test
    void failuresOlderThanTheWindowAreForgotten() {
        assertTrue(healthyAfter(0));
        retried.inc(20);
        assertFalse(healthyAfter(10_000));
        for (int i = 0; i < 4; i++) {
            assertFalse(healthyAfter(10_000), "still within the window of the failures");
        }
        assertTrue(healthyAfter(30_000), "a window with no sends at all is healthy");
    }

    @Test
    void aSteadyStreamOfDeliveriesIsHealthyWhateverTheRetries() {
        for (int i = 0; i < 20; i++) {
            delivered.inc(100);
            retried.inc(100);
            assertTrue(healthyAfter(5_000));
        }
    }
}
