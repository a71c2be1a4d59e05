package io.delaybridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StartupTimelineTest {

    private final AtomicLong now = new AtomicLong(10_000);

    @Test
    void tellsEachPhaseOnceThePipelinePolledAndHttpAnswers() {
        StartupTimeline timeline = new StartupTimeline(9_000, now::get); // run() entered 1 s after the JVM start
        long checks = timeline.now();
        now.addAndGet(300);
        timeline.took("topics", checks);
        long redis = checks;
        now.addAndGet(100);
        timeline.took("redis", redis);
        timeline.checksDone(checks);
        now.addAndGet(50);
        timeline.pipelineRunning();
        now.addAndGet(200);
        timeline.httpStarted();
        assertNull(timeline.line(), "not before the first poll");
        now.addAndGet(150);
        timeline.firstPoll();
        now.addAndGet(999);
        timeline.firstPoll(); // a later assignment changes nothing
        assertEquals(
                "Started in 1800 ms from JVM start: jvm-to-main=0 configuration=1000 topics=300 redis=400"
                        + " checks=400 pipeline=50 first-poll=350 http=200 (ms; topics and redis run side by side, checks is"
                        + " the time of both together)",
                timeline.line());
    }
}
