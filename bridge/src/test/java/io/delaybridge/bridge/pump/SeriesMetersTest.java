package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.schemas.SeriesRecord;
import org.junit.jupiter.api.Test;

/** The series' meters: what a settled turn counts, and a bounded number of names however many series there are. */
class SeriesMetersTest {

    private final MetricRegistry registry = new MetricRegistry();
    private final SeriesMeters meters = new SeriesMeters(registry);

    @Test
    void aTurnCountsPerSeriesAndPerTarget() {
        meters.settled("tick", "out", new SeriesRecord.Tally(true, 4, 3));
        meters.settled("tick", "out", new SeriesRecord.Tally(false, 2, 2));
        assertEquals(1, count("delay.series.delivered.tick"));
        assertEquals(6, count("delay.series.missed.tick"));
        assertEquals(5, count("delay.series.skipped.tick"));
        assertEquals(1, count("delay.target.series-delivered.out"));
        assertEquals(6, count("delay.target.series-missed.out"));
        assertEquals(5, count("delay.target.series-skipped.out"));
    }

    @Test
    void seriesPastTheCapShareTheOthersMeters() {
        int extra = 50;
        for (int i = 0; i < SeriesMeters.MAX_TRACKED_SERIES + extra; i++) {
            meters.settled("s-" + i, "out", new SeriesRecord.Tally(true, 0, 0));
        }
        meters.settled("s-0", "out", new SeriesRecord.Tally(true, 0, 0));
        long named = registry.getMeters((name, m) -> name.startsWith("delay.series.delivered."))
                .size();
        assertEquals(SeriesMeters.MAX_TRACKED_SERIES + 1, named, "the first 100 and _others");
        assertEquals(2, count("delay.series.delivered.s-0"), "a tracked series keeps its own meter");
        assertEquals(extra, count("delay.series.delivered." + SeriesMeters.OTHERS));
        assertEquals(SeriesMeters.MAX_TRACKED_SERIES + extra + 1, count("delay.target.series-delivered.out"));
    }

    private long count(String name) {
        return registry.meter(name).getCount();
    }
}
