package io.delaybridge.checker;

import io.delaybridge.bridge.intake.IntakeLoop;
import io.delaybridge.testkit.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * One fault campaign: a real broker and Redis (one server or a cluster), bridges as child JVMs, the producer, the
 * delivery watch and the fault injector running at once; then the drain, a graceful stop and the report.
 */
final class Campaign {

    static final String INTAKE = "campaign-intake";
    static final String DEADLETTER = "campaign-deadletter";
    static final String KEY_PREFIX = "dq";
    static final String GROUP = "campaign-bridges";
    /** While records are missing after a delete-far, the drain reads the bridges' logs at most this often. */
    private static final long FAR_LOSS_READ_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Pump and intake bounds written into the bridges' configuration; they bound the duplicates of one crash. */
    static final int MAX_IN_FLIGHT = 1000;
    /** The bridges' intake.expressBufferRecords (the shipped default): express records uncommitted, at most. */
    static final int EXPRESS_BUFFER_RECORDS = 50_000;

    static final int MAX_POLL_RECORDS = 500;

    /** What each bridge is started with beside its config file. */
    private Map<String, String> bridgeEnvironment(String bootstrap, String redisUri) {
        return Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "REDIS_URI",
                redisUri,
                "DELAY_EXACTLY_ONCE",
                Boolean.toString(options.exactlyOnce()));
    }

    private final CampaignOptions options;

    Campaign(CampaignOptions options) {
        this.options = options;
    }

    CampaignReport run() throws Exception {
        options.check(); // options built in code, not parsed, pass here too
        long began = System.nanoTime();
        Path dir = options.workDir().toAbsolutePath();
        TempDirs.deleteRecursively(dir);
        Files.createDirectories(dir);
        List<String> targets = IntStream.range(0, options.targets())
                .mapToObj(i -> "campaign-target-" + i)
                .toList();
        System.out.println("[campaign] " + options.commandLine() + "; logs in " + dir);
        try (CampaignKafka broker = CampaignKafka.start(options.brokers(), dir.resolve("kafka"));
                CampaignRedis redis = CampaignRedis.start(options.redis(), dir.resolve("redis"))) {
            createTopics(broker.bootstrapServers(), targets);
            Path config = BridgeConfig.write(options, dir, broker.replicationFactor());
            SplittableRandom random = new SplittableRandom(options.seed());
            BridgeFleet fleet = new BridgeFleet(
                    config,
                    dir.resolve("bridges"),
                    bridgeEnvironment(broker.bootstrapServers(), redis.uri()),
                    options,
                    random.split());
            try {
                return runWith(broker, redis, fleet, targets, random, began);
            } finally {
                fleet.killAll();
            }
        }
    }

    private CampaignReport runWith(
            CampaignKafka broker,
            CampaignRedis redis,
            BridgeFleet fleet,
            List<String> targets,
            SplittableRandom random,
            long began)
            throws Exception {
        fleet.restore(options.bridges());
        long sharedInstant = System.currentTimeMillis() + options.maxDelay().toMillis();
        RecordPlan plan = new RecordPlan(
                options.records(), options.seed(), options.maxDelay().toMillis(), sharedInstant, options.targets());
        DeliveryLedger ledger = new DeliveryLedger(options.records(), INTAKE);
        DeliveryWatch watch =
                new DeliveryWatch(broker.bootstrapServers(), targets, DEADLETTER, ledger, options.exactlyOnce());
        FarDeleter farDeleter = new FarDeleter(
                broker.bootstrapServers(),
                ledger,
                redis::masterUris,
                options.partitions(),
                options.faults().containsKey(Fault.DELETE_FAR) ? options.hotWindowMillis() : 0);
        FaultInjector faults = new FaultInjector(options, fleet, broker, redis, farDeleter, random.split());
        IntakeLoad load = new IntakeLoad(
                broker.bootstrapServers(), INTAKE, targets, plan, ledger, options.rate(), faults::trafficFaultsDone);

        PendingSpread spread = new PendingSpread(redis::masterUris, KEY_PREFIX, INTAKE);
        Thread spreadThread = start(spread, "pending-spread");
        Thread watchThread = start(watch, "delivery-watch");
        Thread loadThread = start(load, "intake-load");
        Thread faultThread = start(faults, "fault-injector");
        Thread pathsThread = start(() -> readPathsEverySecond(fleet), "delivery-paths");
        while (loadThread.isAlive() || faultThread.isAlive()) {
            // every 10 s while either runs (once the load is done, join returns at once: wait on the faults then)
            (loadThread.isAlive() ? loadThread : faultThread).join(10_000);
            progress("running", load, watch, ledger);
        }
        spreadThread.interrupt();
        spreadThread.join(10_000);
        spread.close();
        List<String> notes = new ArrayList<>();
        if (faults.failure() != null) {
            notes.add("fault injection failed: " + faults.failure());
        }
        fleet.restore(options.bridges());

        // Drain: every acknowledged record arrived (or, after a delete-far, a bridge reported it lost) and Redis holds
        // nothing, or the deadline passed.
        long drainDeadline = System.nanoTime()
                + options.maxDelay()
                        .plus(options.lease().multipliedBy(3))
                        .plusSeconds(120)
                        .toNanos();
        RedisLeftovers afterDrain = RedisLeftovers.read(redis.masterUris(), KEY_PREFIX, INTAKE);
        long lastProgress = System.nanoTime();
        long lastLossRead = System.nanoTime() - FAR_LOSS_READ_NANOS;
        long unaccounted = ledger.missing();
        while ((unaccounted > 0 || !afterDrain.empty()) && System.nanoTime() < drainDeadline) {
            Thread.sleep(500);
            afterDrain = RedisLeftovers.read(redis.masterUris(), KEY_PREFIX, INTAKE);
            unaccounted = ledger.missing();
            if (unaccounted > 0
                    && !farDeleter.deletions().isEmpty()
                    && System.nanoTime() - lastLossRead > FAR_LOSS_READ_NANOS) {
                unaccounted = farLoss(ledger, farDeleter).check().silent();
                lastLossRead = System.nanoTime();
            }
            if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(10)) {
                progress("draining, redis " + afterDrain, load, watch, ledger);
                lastProgress = System.nanoTime();
            }
        }
        pathsThread.interrupt();
        pathsThread.join(10_000);
        Map<String, Integer> statuses = fleet.stopAll(Duration.ofSeconds(60)); // reads the paths before SIGTERM
        long caughtUpDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!watch.caughtUp() && System.nanoTime() < caughtUpDeadline) {
            Thread.sleep(200);
        }
        watch.stop();
        watchThread.join(30_000);
        RedisLeftovers afterStop = RedisLeftovers.read(redis.masterUris(), KEY_PREFIX, INTAKE);
        notes.addAll(fleet.notes());
        notes.add("most repeated: " + watch.repeats.worst());
        Path repeats = options.workDir().toAbsolutePath().resolve("repeats.txt");
        watch.repeats.write(repeats);
        notes.add("every repeated record, each copy with its place in the log: " + repeats);
        return report(
                plan,
                ledger,
                load,
                faults,
                farDeleter,
                afterDrain,
                afterStop,
                statuses,
                notes,
                spread.samples(),
                fleet.paths(),
                began);
    }

    /** Reads every bridge's path meters once a second until interrupted ({@link DeliveryPaths}). */
    private static void readPathsEverySecond(BridgeFleet fleet) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                fleet.readPaths();
                Thread.sleep(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CampaignReport report(
            RecordPlan plan,
            DeliveryLedger ledger,
            IntakeLoad load,
            FaultInjector faults,
            FarDeleter farDeleter,
            RedisLeftovers afterDrain,
            RedisLeftovers afterStop,
            Map<String, Integer> statuses,
            List<String> notes,
            List<PendingSpread.Sample> spread,
            DeliveryPaths.Totals paths,
            long began) {
        ledger.checkDelayIds();
        long lost = 0;
        long duplicates = 0;
        long duplicatedRecords = 0;
        long early = 0;
        long deadlettered = 0;
        List<String> earlyExamples = new ArrayList<>();
        long[] lateness = new long[plan.records()];
        int measured = 0;
        LatenessByFault byFault = new LatenessByFault(faults.windows());
        for (int n = 0; n < plan.records(); n++) {
            int copies = ledger.copies(n);
            if (copies > 1) {
                duplicates += copies - 1;
                duplicatedRecords++;
            }
            deadlettered += ledger.deadletteredCopies(n) > 0 ? 1 : 0;
            if (!ledger.isAcknowledged(n)) {
                continue;
            }
            if (copies == 0) {
                lost++;
                continue;
            }
            long late = ledger.firstArrival(n) - ledger.dueAt(n);
            if (late < 0) {
                early++;
                if (earlyExamples.size() < 5) {
                    earlyExamples.add("record " + n + " (" + ledger.expectedDelayId(n) + ") due " + ledger.dueAt(n)
                            + " arrived " + ledger.firstArrival(n));
                }
            }
            lateness[measured++] = late;
            byFault.record(ledger.dueAt(n), ledger.firstArrival(n));
        }
        Map<Fault, Integer> injected = faults.injected();
        long bound = 0;
        for (Map.Entry<Fault, Integer> e : injected.entrySet()) {
            int bridgesHit = e.getKey().killsABridge()
                    ? 1
                    : (e.getKey() == Fault.REDIS || e.getKey() == Fault.BROKER) ? options.bridges() : 0;
            bound += (long) e.getValue()
                    * bridgesHit
                    * (MAX_IN_FLIGHT + IntakeLoop.MAX_BATCHES_IN_FLIGHT * MAX_POLL_RECORDS + EXPRESS_BUFFER_RECORDS);
        }
        if (options.exactlyOnce()) {
            bound = 0; // read_committed: no crash window may show a record twice
        }
        FarLoss farLoss = farLoss(ledger, farDeleter);
        if (farLoss.check().reported().size() + farLoss.check().silent() != lost) {
            throw new IllegalStateException("the far-loss check sorted " + farLoss + " of " + lost + " lost records");
        }
        if (ledger.strangers() > 0) {
            notes.add(ledger.strangers() + " records in the target topics were not written by this campaign");
        }
        return new CampaignReport(
                options.commandLine(),
                plan.records(),
                load.sent.get(),
                load.acked.get(),
                load.failed.get(),
                lost,
                duplicates,
                duplicatedRecords,
                bound,
                early,
                earlyExamples,
                deadlettered,
                ledger.wrongIds(),
                ledger.wrongIdExamples(),
                farLoss,
                CampaignReport.percentiles(java.util.Arrays.copyOf(lateness, measured)),
                byFault.byKind(),
                options.faults().isEmpty() ? Map.of() : injectedOrPlanned(injected),
                byFault.faultLog(),
                notes,
                afterDrain,
                afterStop,
                statuses,
                options.redis(),
                spread,
                paths,
                (System.nanoTime() - began) / 1e9);
    }

    /** Sorts the lost records into reported (delete-far, named in the bridges' logs) and silent ones. */
    private FarLoss farLoss(DeliveryLedger ledger, FarDeleter farDeleter) {
        List<FarLossCheck.Lost> lost = new ArrayList<>();
        Map<Long, Integer> byPosition = new java.util.HashMap<>();
        for (int n = 0; n < ledger.records(); n++) {
            if (!ledger.isAcknowledged(n)) {
                continue;
            }
            if (ledger.copies(n) == 0) {
                lost.add(new FarLossCheck.Lost(n, ledger.intakePartition(n), ledger.intakeOffset(n)));
            } else {
                byPosition.put(position(ledger.intakePartition(n), ledger.intakeOffset(n)), n);
            }
        }
        List<FarLossLog.Report> reports =
                FarLossLog.read(options.workDir().toAbsolutePath().resolve("bridges"));
        // named lost by a bridge, yet delivered: a false alarm (not a loss), counted for the report
        long namedButArrived = 0;
        for (Map.Entry<Integer, List<long[]>> e :
                FarLossCheck.namedRanges(reports).entrySet()) {
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (long[] range : e.getValue()) {
                for (long offset = range[0]; offset <= range[1]; offset++) {
                    if (byPosition.containsKey(position(e.getKey(), offset)) && seen.add(offset)) {
                        namedButArrived++;
                    }
                }
            }
        }
        return new FarLoss(
                FarLossCheck.classify(lost, farDeleter.deletedBefore(), reports),
                farDeleter.deletions().stream()
                        .map(FarDeleter.Deletion::describe)
                        .toList(),
                reports.size(),
                namedButArrived);
    }

    private static long position(int partition, long offset) {
        return ((long) partition << 48) | offset;
    }

    private Map<Fault, Integer> injectedOrPlanned(Map<Fault, Integer> injected) {
        return injected.isEmpty() ? options.faults() : injected;
    }

    private static void progress(String phase, IntakeLoad load, DeliveryWatch watch, DeliveryLedger ledger) {
        System.out.printf(
                "[campaign] %s: %,d sent, %,d acknowledged, %,d arrivals, %,d acknowledged not arrived%n",
                phase, load.sent.get(), load.acked.get(), watch.arrivals.get(), ledger.missing());
    }

    void createTopics(String bootstrap, List<String> targets) throws ExecutionException, InterruptedException {
        Map<String, String> logAppendTime = Map.of("message.timestamp.type", "LogAppendTime");
        List<NewTopic> topics = new ArrayList<>();
        topics.add(new NewTopic(INTAKE, Optional.of(options.partitions()), Optional.empty()).configs(logAppendTime));
        topics.add(new NewTopic(DEADLETTER, Optional.of(1), Optional.empty()).configs(logAppendTime));
        for (String target : targets) {
            topics.add(new NewTopic(target, Optional.of(4), Optional.empty()).configs(logAppendTime));
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(topics).all().get();
        }
    }

    private static Thread start(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
