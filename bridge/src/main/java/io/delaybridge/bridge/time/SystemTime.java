package io.delaybridge.bridge.time;

import java.time.Clock;

/** The host's monotonic clock and sleep, with the wall clock of a {@link Clock} (the host's, unless shifted). */
final class SystemTime implements Time {

    private final Clock wall;

    SystemTime(Clock wall) {
        this.wall = wall;
    }

    @Override
    public long milliseconds() {
        return wall.millis();
    }

    @Override
    public long nanoseconds() {
        return System.nanoTime();
    }

    @Override
    public void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Clock clock() {
        return wall;
    }
}
