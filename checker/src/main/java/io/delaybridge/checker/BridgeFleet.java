package io.delaybridge.checker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** The bridges of a campaign: starts them with their own ports and names, picks victims, replaces the dead. */
final class BridgeFleet {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path config;
    private final Path logDir;
    private final Map<String, String> env;
    private final CampaignOptions options;
    private final SplittableRandom random;
    private final List<BridgeProcess> running = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final DeliveryPaths paths = new DeliveryPaths();
    /** Static member ids of bridges that ended: a replacement takes one, as a restarted instance would. */
    private final java.util.ArrayDeque<String> freeInstanceIds = new java.util.ArrayDeque<>();

    private int started;
    private int instanceIds;

    BridgeFleet(Path config, Path logDir, Map<String, String> env, CampaignOptions options, SplittableRandom random) {
        this.config = config;
        this.logDir = logDir;
        this.env = env;
        this.options = options;
        this.random = random;
    }

    /** Starts a bridge (armed with a crash point, or not) and adds it to the fleet; does not wait for it. */
    synchronized BridgeProcess start(CrashPoint crashPoint, int crashAfter) {
        List<String> shifts = options.clockShifts();
        String shift = shifts.isEmpty() ? null : shifts.get(started % shifts.size());
        String name = "bridge-" + (++started) + (crashPoint == null ? "" : "-" + crashPoint.settingName());
        String instanceId = freeInstanceIds.isEmpty() ? "member-" + (++instanceIds) : freeInstanceIds.poll();
        BridgeProcess bridge = BridgeProcess.start(
                name, instanceId, config, logDir, env, crashPoint, crashAfter, shift, options.clockShiftMode());
        running.add(bridge);
        return bridge;
    }

    synchronized BridgeProcess startHealthy() throws InterruptedException {
        BridgeProcess bridge = start(null, 0);
        bridge.awaitHealthy(START_TIMEOUT);
        return bridge;
    }

    /** Forgets a bridge that ended (killed, stopped, crashed); its member id goes to the next one started. */
    synchronized void remove(BridgeProcess bridge) {
        if (running.remove(bridge) && !bridge.isAlive()) {
            freeInstanceIds.add(bridge.instanceId());
        }
    }

    synchronized BridgeProcess pickVictim() {
        List<BridgeProcess> alive =
                running.stream().filter(BridgeProcess::isAlive).toList();
        return alive.get(random.nextInt(alive.size()));
    }

    /**
     * Brings the fleet back to {@code size} running, healthy bridges: replaces any that ended (and notes an
     * unexpected end), then waits until every one answers its health check.
     */
    synchronized void restore(int size) throws InterruptedException {
        for (BridgeProcess bridge : List.copyOf(running)) {
            if (!bridge.isAlive()) {
                remove(bridge);
                notes.add(bridge.name() + " ended unexpectedly with status " + bridge.exitValue() + "; see "
                        + bridge.log());
            }
        }
        while (running.size() < size) {
            start(null, 0);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (BridgeProcess bridge : List.copyOf(running)) {
            bridge.awaitHealthy(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
    }

    /** SIGTERM to every bridge; returns the exit statuses by name. */
    synchronized Map<String, Integer> stopAll(Duration grace) throws InterruptedException {
        Map<String, Integer> statuses = new java.util.LinkedHashMap<>();
        running.forEach(this::readPaths);
        for (BridgeProcess bridge : running) {
            if (bridge.isAlive()) {
                bridge.signal("TERM");
            }
        }
        for (BridgeProcess bridge : running) {
            statuses.put(bridge.name(), bridge.terminate(grace));
        }
        running.clear();
        return statuses;
    }

    synchronized void killAll() {
        running.forEach(this::readPaths);
        for (BridgeProcess bridge : running) {
            bridge.kill();
        }
        running.clear();
    }

    /**
     * Reads the path meters of one bridge ({@link DeliveryPaths}); called every second for all and just before a
     * planned kill or stop. Not synchronized: a stopped (SIGSTOP) bridge answers late, and the fleet must not wait.
     */
    void readPaths(BridgeProcess bridge) {
        if (bridge.isAlive()) {
            bridge.metrics().ifPresent(json -> paths.record(bridge.name(), json));
        }
    }

    /** Reads the path meters of every running bridge. */
    void readPaths() {
        List<BridgeProcess> snapshot;
        synchronized (this) {
            snapshot = List.copyOf(running);
        }
        snapshot.forEach(this::readPaths);
    }

    DeliveryPaths.Totals paths() {
        return paths.totals();
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }
}
