package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DeliveryPathsTest {

    private static String metrics(long express, long parked) {
        return "{\"version\":\"4.0.0\",\"gauges\":{},\"counters\":{},\"meters\":{"
                + "\"delay.intake.express\":{\"count\":" + express + ",\"m1_rate\":0.0},"
                + "\"delay.intake.parked\":{\"count\":" + parked + ",\"m1_rate\":0.0},"
                + "\"delay.intake.read\":{\"count\":" + (express + parked) + "}}}";
    }

    @Test
    void sumsTheLatestReadingOfEachBridge() {
        DeliveryPaths paths = new DeliveryPaths();
        paths.record("bridge-1", metrics(100, 40));
        paths.record("bridge-1", metrics(250, 90));
        paths.record("bridge-2", metrics(10, 5));
        // a reading that arrives late (the scraper's, after the pre-kill one) never lowers a bridge's count
        paths.record("bridge-1", metrics(200, 80));
        // a replacement is a new incarnation with its own name: its counts start again from 0 and add up
        paths.record("bridge-3", metrics(7, 3));

        DeliveryPaths.Totals totals = paths.totals();
        assertEquals(new DeliveryPaths.Totals(267, 98, 3), totals);
        assertEquals("express-path records: 267 (lower bound), parked: 98", totals.render());
    }

    @Test
    void bridgesWithoutTheMetersReadAsNotAvailable() {
        DeliveryPaths paths = new DeliveryPaths();
        assertEquals(
                "express-path records: 0 (lower bound), parked: n/a (the bridges have no delay.intake.express "
                        + "meter)",
                paths.totals().render());
        paths.record("bridge-1", "{\"meters\":{\"delay.intake.read\":{\"count\":500}}}");
        assertEquals(new DeliveryPaths.Totals(-1, -1, 1), paths.totals());
        assertEquals(
                "express-path records: 0 (lower bound), parked: n/a (the bridges have no delay.intake.express "
                        + "meter)",
                paths.totals().render());
    }

    @Test
    void oneMeterAloneIsCounted() {
        DeliveryPaths paths = new DeliveryPaths();
        paths.record("bridge-1", "{\"meters\":{\"delay.intake.parked\":{\"count\":500}}}");
        paths.record("bridge-2", metrics(4, 6));
        assertEquals(new DeliveryPaths.Totals(4, 506, 2), paths.totals());
    }
}
