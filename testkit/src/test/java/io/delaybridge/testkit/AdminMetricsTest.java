package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AdminMetricsTest {

    private static final String METRICS = """
            {"version":"4.0.0","gauges":{"delay.intake.lag":{"value":12},"delay.send.batch-size-bytes-avg" : {"value":1.5E4},
                                    "delay.send.batch-size":{"value":"n/a"}},
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

    @Test
    void readsTheValueOfTheNamedGaugeOnly() {
        assertEquals(OptionalDouble.of(12), AdminMetrics.gauge(METRICS, "delay.intake.lag"));
        assertEquals(OptionalDouble.of(15_000), AdminMetrics.gauge(METRICS, "delay.send.batch-size-bytes-avg"));
        assertEquals(OptionalDouble.empty(), AdminMetrics.gauge(METRICS, "delay.send.batch-size"));
        assertEquals(OptionalDouble.empty(), AdminMetrics.gauge(METRICS, "delay.pump.inflight"));
        assertEquals(OptionalDouble.empty(), AdminMetrics.gauge(METRICS, "delay.intake"));
    }
}
