package io.delaybridge.bridge;

import io.delaybridge.bridge.time.Time;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a start-up's time goes, told in one INFO line once the bridge delivers and answers HTTP:
 *
 * <pre>
 * Started in 1843 ms from JVM start: jvm-to-main=412 configuration=388 topics=301 redis=344 checks=352 pipeline=210
 *     first-poll=480 http=395 (ms; topics and redis run side by side, checks is the time of both together)
 * </pre>
 *
 * <ul>
 *   <li>{@code jvm-to-main}: from the JVM's start to {@code main} (the JVM's own start, class data sharing).
 *   <li>{@code configuration}: from {@code main} to the application's {@code run}: Dropwizard's bootstrap, reading and
 *       validating the configuration, logging.
 *   <li>{@code topics}, {@code redis}: the topic check (and creation) and the Redis connection with its checks, each
 *       on its own; {@code checks}: both together, as they run at the same time.
 *   <li>{@code pipeline}: from the checks' end to a running intake and pump (the rest of the wiring, the producer).
 *   <li>{@code first-poll}: from a running pipeline to the intake's first poll that brought partitions, with their
 *       shards taken by the pump: from here the bridge delivers.
 *   <li>{@code http}: from a running pipeline to the HTTP server's start (Jersey's resources, Jetty).
 * </ul>
 *
 * An instance that gets no intake partition (more instances than partitions) logs the line at its first assignment.
 * Marks come from several threads; the line is written once.
 */
final class StartupTimeline {

    private static final Logger LOG = LoggerFactory.getLogger(StartupTimeline.class);

    /** When {@code main} began, ms since the epoch; 0 if the application was started otherwise (tests). */
    private static volatile long mainMillis;

    private final LongSupplier clock;
    private final long jvmStart;
    private final long runStart;
    private final Map<String, Long> phases = new LinkedHashMap<>();
    private long checksEnd;
    private long pipelineRunning;
    private long firstPoll;
    private long http;
    private boolean told;

    StartupTimeline(long jvmStartMillis, LongSupplier clock) {
        this.clock = clock;
        this.jvmStart = jvmStartMillis;
        this.runStart = clock.getAsLong();
        long main = mainMillis > 0 ? mainMillis : jvmStartMillis;
        phases.put("jvm-to-main", main - jvmStartMillis);
        phases.put("configuration", runStart - main);
    }

    /** The timeline of this JVM, started now (in {@code run}). */
    static StartupTimeline ofThisJvm() {
        return new StartupTimeline(ManagementFactory.getRuntimeMXBean().getStartTime(), Time.SYSTEM::milliseconds);
    }

    /** Called first thing in {@code main}. */
    static void mainEntered() {
        mainMillis = Time.SYSTEM.milliseconds();
    }

    /** Now, on this timeline's clock: hand it to {@link #took} when the step ends. */
    long now() {
        return clock.getAsLong();
    }

    /** A step that began at {@code since} ({@link #now}) ended now: {@code topics}, {@code redis}. */
    synchronized void took(String phase, long since) {
        phases.put(phase, clock.getAsLong() - since);
    }

    /** The checks that run side by side ended: the rest of the wiring begins. */
    synchronized void checksDone(long since) {
        checksEnd = clock.getAsLong();
        phases.put("checks", checksEnd - since);
    }

    /** The intake and the pump run. */
    synchronized void pipelineRunning() {
        pipelineRunning = clock.getAsLong();
        phases.put("pipeline", pipelineRunning - (checksEnd > 0 ? checksEnd : runStart));
    }

    /** The intake's first poll brought partitions and the pump took their shards. */
    synchronized void firstPoll() {
        if (firstPoll == 0) {
            firstPoll = clock.getAsLong();
            tellOnceDone();
        }
    }

    /** The HTTP server started. */
    synchronized void httpStarted() {
        if (http == 0) {
            http = clock.getAsLong();
            tellOnceDone();
        }
    }

    /** The line, once the pipeline polled and HTTP answers; null before. */
    synchronized String line() {
        if (firstPoll == 0 || http == 0 || pipelineRunning == 0) {
            return null;
        }
        Map<String, Long> all = new LinkedHashMap<>(phases);
        all.put("first-poll", firstPoll - pipelineRunning);
        all.put("http", http - pipelineRunning);
        return "Started in " + (Math.max(firstPoll, http) - jvmStart) + " ms from JVM start: "
                + all.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(" "))
                + " (ms; topics and redis run side by side, checks is the time of both together)";
    }

    private void tellOnceDone() {
        String line = line();
        if (line != null && !told) {
            told = true;
            LOG.info(line);
        }
    }
}
