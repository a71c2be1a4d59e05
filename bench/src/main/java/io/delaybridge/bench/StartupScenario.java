package io.delaybridge.bench;

import io.delaybridge.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * "startup", a restart's cost: {@code --startups} rounds; in each, {@code --startup-records} records due now wait in
 * the intake while the service is down, then it starts cold and is measured from the process' start (the fork) to its
 * first delivery, then stopped by SIGTERM once it delivered them all. Every round starts each variant once, one after
 * the other, so they share the machine's load: the plain Kafka copy ({@link PlainCopy}, a fresh JVM with the bridge's
 * JVM options), the bridge with no archive and no options file, the bridge as shipped: with its class-data-sharing
 * archive ({@code --bridge-cds}, when the file exists) and its JVM options ({@code --bridge-options}); and, with
 * {@code --startup-baseline-jar}, another build of the bridge (e.g. the previous release; with {@code
 * --startup-baseline-cds} its archive, with {@code --startup-baseline-jvm} its options) for a before-and-after in one
 * run. Each variant keeps its group and key
 * prefix over the rounds: a restart, not a first start (the first round is the first start). Reported per variant: the
 * median and the worst of the rounds, and for the bridge the median of each phase of its start-up line ("Started in
 * ... ms from JVM start: ...").
 */
final class StartupScenario implements Scenario {

    /** The target: process start to first delivery, median and worst of the rounds. */
    static final long MEDIAN_TARGET_MS = 2_000;

    static final long WORST_TARGET_MS = 3_000;

    private static final Pattern STARTED = Pattern.compile("Started in (\\d+) ms from JVM start: ([^(]*)");
    private static final Pattern PHASE = Pattern.compile("([a-z-]+)=(\\d+)");

    private final BenchRun run;

    StartupScenario(BenchRun run) {
        this.run = run;
    }

    /** One way of starting: the copy, or the bridge from a jar with JVM options. */
    private record Variant(String label, String name, Path jar, List<String> extraJvm) {
        boolean copy() {
            return jar == null;
        }
    }

    @Override
    public void run() throws Exception {
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("plain Kafka copy", "startcopy", null, List.of()));
        if (run.options.startupBaselineJar != null) {
            Path archive = run.options.startupBaselineCds;
            variants.add(new Variant(
                    "bridge, baseline jar " + run.options.startupBaselineJar
                            + (archive == null ? "" : " with the archive " + archive),
                    "startbase",
                    run.options.startupBaselineJar,
                    baselineJvm(run.options)));
        }
        variants.add(new Variant("bridge", "startplain", run.options.bridgeJar, List.of()));
        if (Files.isRegularFile(run.options.bridgeCds)) {
            variants.add(new Variant(
                    "bridge as shipped (its CDS archive and JVM options)",
                    "startcds",
                    run.options.bridgeJar,
                    run.shippedJvm()));
        } else {
            BenchRun.log(
                    "startup: no CDS archive at %s (built with the jar unless -Dcds.skip): measuring without",
                    run.options.bridgeCds);
        }
        Map<Variant, String[]> topics = new LinkedHashMap<>();
        for (Variant v : variants) {
            topics.put(v, run.createTopics(v.name(), 3));
        }
        Map<Variant, List<Long>> firsts = new LinkedHashMap<>();
        Map<Variant, Map<String, List<Long>>> phases = new LinkedHashMap<>();
        int rounds = run.options.startups;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < variants.size(); i++) {
                Variant v = variants.get(i);
                int phase = 10 + round * variants.size() + i;
                long first = v.copy()
                        ? copyOnce(topics.get(v), phase)
                        : bridgeOnce(v, topics.get(v), phase, phases.computeIfAbsent(v, k -> new TreeMap<>()));
                firsts.computeIfAbsent(v, k -> new ArrayList<>()).add(first);
                BenchRun.log(
                        "startup round %d/%d, %s: first delivery %,d ms after the process started",
                        round + 1, rounds, v.label(), first);
            }
        }
        for (Variant v : variants) {
            List<Long> times = firsts.get(v);
            String line = String.format(
                    "median %,d ms, worst %,d ms of %d starts (%s)", median(times), worst(times), times.size(), times);
            if (!v.copy()) {
                line = "median " + Targets.atMost(median(times), MEDIAN_TARGET_MS, "ms") + ", worst "
                        + Targets.atMost(worst(times), WORST_TARGET_MS, "ms") + " of " + times.size() + " starts ("
                        + times + "); start-up line, median ms: " + phaseMedians(phases.get(v));
            }
            run.put("startup: " + v.label() + ", process start to first delivery", "%s", line);
        }
    }

    /** The baseline jar's JVM options after {@code --bridge-jvm}: its archive, if given, and its extra options. */
    static List<String> baselineJvm(BenchOptions options) {
        List<String> jvm = new ArrayList<>();
        if (options.startupBaselineCds != null) {
            jvm.add("-XX:SharedArchiveFile=" + options.startupBaselineCds.toAbsolutePath());
        }
        jvm.addAll(options.startupBaselineJvm);
        return jvm;
    }

    /** Preloads the round's records, starts the bridge, waits for all of them; process start to first delivery. */
    private long bridgeOnce(Variant v, String[] topics, int phase, Map<String, List<Long>> phases) throws Exception {
        Stats stats = run.preloaded("startup " + v.name(), topics, run.options.startupRecords, phase);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(phase, stats);
            long start = System.currentTimeMillis();
            try (BridgeProcess bridge = run.startBridge(v.name(), topics, v.jar(), v.extraJvm())) {
                BenchRun.awaitDelivered(stats, 60);
                Matcher started = STARTED.matcher(Files.readString(bridge.log()));
                if (started.find()) {
                    phases.computeIfAbsent("total", k -> new ArrayList<>()).add(Long.parseLong(started.group(1)));
                    Matcher m = PHASE.matcher(started.group(2));
                    while (m.find()) {
                        phases.computeIfAbsent(m.group(1), k -> new ArrayList<>())
                                .add(Long.parseLong(m.group(2)));
                    }
                }
            }
            return firstDelivery(stats, start);
        }
    }

    /** As {@link #bridgeOnce} for the plain copy. */
    private long copyOnce(String[] topics, int phase) throws Exception {
        Stats stats = run.preloaded("startup copy", topics, run.options.startupRecords, phase);
        try (Collector collector = new Collector(run.bootstrap, List.of(topics[1]))) {
            collector.register(phase, stats);
            long start = System.currentTimeMillis();
            try (ChildJvm copy = CopyDrain.startCold(run, topics[0], "startcopy")) {
                BenchRun.awaitDelivered(stats, 60);
                copy.terminate(Duration.ofSeconds(30));
            }
            return firstDelivery(stats, start);
        }
    }

    /** From {@code start} to the first delivery (the broker's append time); -1 if nothing arrived. */
    static long firstDelivery(Stats stats, long start) {
        synchronized (stats) {
            return stats.count == 0 ? -1 : stats.firstDelivered - start;
        }
    }

    private static String phaseMedians(Map<String, List<Long>> phases) {
        if (phases == null || phases.isEmpty()) {
            return "none (the jar logs no start-up line)";
        }
        StringBuilder sb = new StringBuilder();
        phases.entrySet().stream()
                .sorted((a, b) -> Integer.compare(order(a.getKey()), order(b.getKey())))
                .forEach(e -> sb.append(sb.length() == 0 ? "" : " ")
                        .append(e.getKey())
                        .append('=')
                        .append(median(e.getValue())));
        return sb.toString();
    }

    /** The start-up line's order, with the total first. */
    private static int order(String phase) {
        List<String> known = List.of(
                "total", "jvm-to-main", "configuration", "topics", "redis", "checks", "pipeline", "first-poll", "http");
        int i = known.indexOf(phase);
        return i < 0 ? known.size() : i;
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? -1 : sorted.get((sorted.size() - 1) / 2);
    }

    static long worst(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElse(-1);
    }
}
