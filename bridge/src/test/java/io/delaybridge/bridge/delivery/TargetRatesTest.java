package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Caps per target, and per-target meters with a bounded number of names. */
class TargetRatesTest {

    @Test
    void aTargetTakesItsOwnCapOrTheDefaultAndZeroExemptsIt() {
        TargetRates rates = new TargetRates(
                50, Map.of("orders", 500.0, "audit", 0.0), TokenBucket.PER_INSTANCE, new MetricRegistry());
        assertTrue(rates.anyCap());
        assertEquals(500, rates.target("orders").bucket().perSecond());
        assertEquals(50, rates.target("other").cap());
        assertFalse(rates.capped("audit"));
        assertNull(rates.target("audit").bucket(), "no bucket, nothing to pay for an uncapped target");
        assertSame(rates.target("orders"), rates.target("orders"), "one entry per topic");
    }

    @Test
    void noCapsAtAll() {
        TargetRates rates = new TargetRates(0, Map.of(), TokenBucket.PER_INSTANCE, new MetricRegistry());
        assertFalse(rates.anyCap());
        assertFalse(rates.target("orders").capped());
    }

    @Test
    void metersAreKeptForAtMostAHundredTargetsTheRestShareOne() {
        MetricRegistry registry = new MetricRegistry();
        TargetRates rates = new TargetRates(0, Map.of(), TokenBucket.PER_INSTANCE, registry);
        for (int i = 0; i < TargetRates.MAX_TRACKED + 50; i++) {
            rates.target("topic-" + i).delivered(i);
        }
        long names = registry.getMeters((name, m) -> name.startsWith("delay.target.delivered."))
                .size();
        assertEquals(TargetRates.MAX_TRACKED + 1, names, "a hundred targets and " + TargetRates.OTHERS);
        assertEquals(
                50,
                registry.meter("delay.target.delivered." + TargetRates.OTHERS).getCount());
        assertEquals(1, registry.meter("delay.target.delivered.topic-0").getCount());
        List<Map<String, Object>> rows = rates.rows();
        assertEquals(TargetRates.MAX_TRACKED + 1, rows.size());
    }

    @Test
    void rowsShowCapDeliveredLatenessAndHeldBack() {
        TargetRates rates = new TargetRates(
                0, Map.of("orders", 200.0, "idle", 10.0), TokenBucket.PER_INSTANCE, new MetricRegistry());
        TargetRates.Target orders = rates.target("orders");
        orders.delivered(70_000);
        orders.heldBack();
        orders.handedBack(3);
        Map<String, Object> row = rates.rows().stream()
                .filter(r -> r.get("target").equals("orders"))
                .findFirst()
                .orElseThrow();
        assertEquals(200.0, row.get("cap"));
        assertEquals(1L, row.get("delivered"));
        assertEquals(70_000L, row.get("latenessMax"));
        assertEquals(1L, row.get("heldBack"));
        assertEquals(3L, row.get("handedBack"));
        assertTrue(
                rates.rows().stream().anyMatch(r -> r.get("target").equals("idle")),
                "a capped target shows before its first delivery");
    }
}
