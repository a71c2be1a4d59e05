package io.delaybridge.checker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/** Runs a campaign's faults one after the other, in a seeded random order, into the real processes. */
final class FaultInjector implements Runnable {

    private static final Duration CRASH_POINT_TIMEOUT = Duration.ofSeconds(120);

    private final CampaignOptions options;
    private final BridgeFleet fleet;
    private final CampaignKafka broker;
    private final CampaignRedis redis;
    private final FarDeleter farDeleter;
    private final SplittableRandom random;
    private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
    private final List<LatenessByFault.Window> windows = new ArrayList<>();
    private volatile Throwable failure;
    private volatile boolean trafficFaultsDone;

    FaultInjector(
            CampaignOptions options,
            BridgeFleet fleet,
            CampaignKafka broker,
            CampaignRedis redis,
            FarDeleter farDeleter,
            SplittableRandom random) {
        this.options = options;
        this.fleet = fleet;
        this.broker = broker;
        this.redis = redis;
        this.farDeleter = farDeleter;
        this.random = random;
    }

    /** The faults in the order they run: every kind spread over the campaign, not one kind after another. */
    List<Fault> schedule() {
        List<Fault> schedule = new ArrayList<>();
        options.faults().forEach((fault, count) -> {
            for (int i = 0; i < count; i++) {
                schedule.add(fault);
            }
        });
        Collections.shuffle(schedule, new Random(options.seed()));
        // Crash points need traffic to reach, delete-far records still waiting far: spread them over the first half,
        // while the producer still runs.
        List<Fault> crashes = schedule.stream().filter(Fault::needsTraffic).toList();
        List<Fault> others =
                new ArrayList<>(schedule.stream().filter(f -> !f.needsTraffic()).toList());
        int half = (schedule.size() + 1) / 2;
        for (int i = 0; i < crashes.size(); i++) {
            others.add(
                    Math.min(others.size(), (int) ((long) i * half / Math.max(1, crashes.size())) + i), crashes.get(i));
        }
        return others;
    }

    /**
     * True once every fault that needs traffic (crash points, delete-far) has run (or the injector ended): the load
     * need not hold traffic back.
     */
    boolean trafficFaultsDone() {
        return trafficFaultsDone;
    }

    @Override
    public void run() {
        List<Fault> schedule = schedule();
        long crashesLeft = schedule.stream().filter(Fault::needsTraffic).count();
        trafficFaultsDone = crashesLeft == 0;
        try {
            for (Fault fault : schedule) {
                Thread.sleep(options.faultGap().toMillis());
                long start = System.currentTimeMillis();
                String what = inject(fault);
                injected.merge(fault, 1, Integer::sum);
                fleet.restore(options.bridges());
                LatenessByFault.Window window =
                        new LatenessByFault.Window(fault, what, start, System.currentTimeMillis());
                synchronized (this) {
                    windows.add(window);
                }
                System.out.printf(
                        "[fault] %-12s %s (%.1f s until every bridge was healthy again)%n",
                        fault.optionName(), what, (window.healthyMillis() - start) / 1e3);
                if (fault.needsTraffic() && --crashesLeft == 0) {
                    trafficFaultsDone = true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
            System.out.println("[fault] fault injection stopped: " + e);
        } finally {
            trafficFaultsDone = true;
        }
    }

    private String inject(Fault fault) throws InterruptedException {
        switch (fault) {
            case CRASH_STORE, CRASH_CLAIM, CRASH_SEND -> {
                return crashAt(fault.crashPoint());
            }
            case KILL -> {
                BridgeProcess victim = fleet.pickVictim();
                fleet.readPaths(victim);
                victim.kill();
                fleet.remove(victim);
                return "kill -9 " + victim;
            }
            case REDIS -> {
                return redis.crash(random);
            }
            case BROKER -> {
                return broker.crash();
            }
            case REBALANCE -> {
                BridgeProcess extra = fleet.startHealthy();
                Thread.sleep(options.rebalanceHold().toMillis());
                fleet.readPaths(extra);
                int status = extra.terminate(Duration.ofSeconds(60));
                fleet.remove(extra);
                return "added " + extra + ", removed it with SIGTERM after "
                        + options.rebalanceHold().toSeconds() + " s (exit status " + status + ")";
            }
            case ZOMBIE -> {
                BridgeProcess victim = fleet.pickVictim();
                Duration pause = options.lease().plusSeconds(5);
                victim.signal("STOP");
                Thread.sleep(pause.toMillis());
                victim.signal("CONT");
                return "SIGSTOP " + victim + " for " + pause.toSeconds() + " s (lease "
                        + options.lease().toSeconds() + " s), then SIGCONT";
            }
            case DELETE_FAR -> {
                return farDeleter.delete();
            }
            default -> throw new IllegalStateException("unknown fault " + fault);
        }
    }

    /** Starts a bridge armed at the point, beside the others, and waits until it halts there. */
    private String crashAt(CrashPoint point) throws InterruptedException {
        int nth = 1 + random.nextInt(5);
        BridgeProcess armed = fleet.start(point, nth);
        boolean ended = armed.awaitExit(CRASH_POINT_TIMEOUT);
        fleet.remove(armed);
        if (!ended) {
            fleet.readPaths(armed);
            armed.kill();
            return armed + " did not reach " + point.settingName() + " in " + CRASH_POINT_TIMEOUT.toSeconds()
                    + " s; killed -9 instead";
        }
        if (armed.exitValue() != CrashPoint.EXIT_STATUS) {
            throw new IllegalStateException(armed + " armed at " + point.settingName() + " ended with status "
                    + armed.exitValue() + " instead of " + CrashPoint.EXIT_STATUS + "; see " + armed.log());
        }
        return armed + " halted at " + point.settingName() + " (time " + nth + ")";
    }

    /** The faults injected so far, in the order they ran; wall-clock times, to set beside the broker's. */
    synchronized List<LatenessByFault.Window> windows() {
        return List.copyOf(windows);
    }

    synchronized Map<Fault, Integer> injected() {
        return new EnumMap<>(injected);
    }

    Throwable failure() {
        return failure;
    }
}
