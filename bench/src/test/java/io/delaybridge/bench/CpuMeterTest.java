package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CpuMeterTest {

    @Test
    void countersAreReportedAsRatesOverTheMeteredTimeAndUnknownOnesAreLeftOut() throws InterruptedException {
        AtomicLong commits = new AtomicLong(1_000);
        CpuMeter meter = new CpuMeter()
                .counter("intake commits", commits::get)
                .counter("gone", () -> -1)
                .start();
        long started = System.nanoTime();
        commits.addAndGet(50);
        Thread.sleep(20);
        String line = meter.perRecord(100);
        double seconds = (System.nanoTime() - started) / 1e9;

        Matcher rate = Pattern.compile("; a second: intake commits ([0-9.]+)$").matcher(line);
        assertTrue(rate.find(), line);
        double perSecond = Double.parseDouble(rate.group(1));
        assertTrue(perSecond > 0 && perSecond <= 50 / 0.02, "50 commits over at least 20 ms: " + line);
        assertTrue(perSecond >= 50 / seconds * 0.9, "50 commits over at most " + seconds + " s: " + line);
        assertFalse(line.contains("gone"), line);
    }

    @Test
    void withoutCountersTheLineEndsWithTheCpu() {
        String line = new CpuMeter()
                .process("this", ProcessHandle.current().pid())
                .start()
                .perRecord(10);
        assertTrue(line.startsWith("this "), line);
        assertFalse(line.contains("a second"), line);
    }
}
