package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AdminMetricsTest {

    private static final String METRICS = """
            {"version":"4.0.0","gauges":{"delay.intake.lag":{"value":12}},
             "counters":{"delay.pump.inflight":{"count":3}},
             "meters":{"delay.intake.express":{"count":290000,"m15_rate":1.5,"units":"events/second"},
                       "delay.intake.expressions":{"count":7},
                       "delay.intake.parked" : { "count" : 10000 }}}
            """;

    @Test
    void readsTheCountOfTheNamedMetricOnly() {
        assertEquals(OptionalLong.of(290_000), AdminMetrics.count(METRICS, "delay.intake.express"));
        assertEquals(OptionalLong.of(10_000), AdminMetrics.count(METRICS, "delay.intake.parked"));
        assertEquals(OptionalLong.of(3), AdminMetrics.count(METRICS, "delay.pump.inflight"));
    }

    @Test
    void anAbsentMetricOrAGaugeHasNoCount() {
        assertEquals(OptionalLong.empty(), AdminMetrics.count(METRICS, "delay.intake.read"));
        assertEquals(OptionalLong.empty(), AdminMetrics.count(METRICS, "delay.intake.lag"));
        assertEquals(OptionalLong.empty(), AdminMetrics.count(METRICS, "delay.intake.expres"));
        assertEquals(OptionalLong.empty(), AdminMetrics.count("", "delay.intake.express"));
    }
}
