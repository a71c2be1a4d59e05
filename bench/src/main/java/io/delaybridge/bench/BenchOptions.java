package io.delaybridge.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The benchmark's options, parsed and checked once: {@code --name value} pairs, each with a default ({@code --help}
 * lists them). An unknown option, a missing value or a value of the wrong kind stops the run with a message naming
 * the option. {@code --burst} and {@code --burst-intake-rate} are the older names of {@code --parked-records} and
 * {@code --parked-intake-rate}; {@code --scenario burst} is the older name of {@code parked-drain}.
 */
final class BenchOptions {

    /** The scenarios in the order a run takes them. */
    static final List<String> SCENARIOS = List.of(
            "limits",
            "throughput",
            "catch-up",
            "startup",
            "restart",
            "parked-drain",
            "steady",
            "saturation",
            "backlog",
            "layouts",
            "far-layouts",
            "far-thaw",
            "rules",
            "spring-retry",
            "caps",
            "series",
            "sharing");

    private static final Map<String, String> SCENARIO_ALIASES = Map.of("burst", "parked-drain");
    private static final Map<String, String> OPTION_ALIASES =
            Map.of("burst", "parked-records", "burst-intake-rate", "parked-intake-rate");

    enum Kind {
        INT,
        TEXT,
        INT_LIST,
        BOOL
    }

    record Definition(String name, Kind kind, String fallback, String help) {}

    /** Every option: the run's and the scenarios' ({@link BenchOptionTable}), then the far tier's ({@link FarOptions}). */
    private static final List<Definition> DEFINITIONS = definitions();

    private static List<Definition> definitions() {
        List<Definition> all = new ArrayList<>(BenchOptionTable.DEFINITIONS);
        all.addAll(FarOptions.DEFINITIONS);
        return List.copyOf(all);
    }

    private final Map<String, String> values;

    final List<String> scenarios;
    final boolean cluster;
    final int records;
    final int windows;
    final int warmup;
    final int claimRecords;
    final int claimBacklog;
    final int batch;
    final int catchUpRecords;
    final int parkedRecords;
    /** parked-drain: records each bridge drains before the measured drain; 0 for none. */
    final int parkedWarmupRecords;
    /** catch-up: the peer's command line with its placeholders, or empty for none. */
    final List<String> peerCommand;

    final String peerHeader;
    final int startups;
    /** restart: rounds of a kill -9 and a SIGTERM. */
    final int restarts;

    final int startupRecords;
    /** startup: another jar to start beside the bridge's, or null. */
    final Path startupBaselineJar;

    final Path startupBaselineCds;
    /** Extra JVM options of the baseline jar (--startup-baseline-jvm); empty for none. */
    final List<String> startupBaselineJvm;

    final Path bridgeCds;
    /** The shipped JVM options' argument file (--bridge-options); null for none. */
    final Path bridgeOptions;

    final int parkedIntakeRate;
    final int steadyRate;
    final int steadySecondRate;
    final int steadySeconds;
    /** steady: the shortest and longest delay, from --min/max-delay-ms or else --min/max-delay-s. */
    final long minDelayMillis;

    final long maxDelayMillis;
    final int steadyWarmupSeconds;
    final int stepWarmupSeconds;
    final List<Integer> rates;
    final int stepSeconds;
    final int backlog;
    final int layoutRecords;
    final List<Integer> layoutValueBytes;
    /** far-layouts and far-thaw. */
    final FarOptions far;

    final int ruleRecords;
    final int springRetryRecords;
    final int springRetryRate;
    /** series: how many every-second series, and for how long (their occurrences each). */
    final int seriesCount;

    final int seriesSeconds;
    final Path svg;
    final boolean keepWorkDir;
    final List<String> bridgeJvm;
    /** The bridge's delivery.exactlyOnce in each pass of parked-drain, catch-up, steady and restart: false, true, or both. */
    final List<Boolean> exactlyOnce;

    final Path bridgeJar;
    final Path bridgeConfig;

    private BenchOptions(Map<String, String> values) {
        this.values = values;
        scenarios = scenarios(text("scenario"));
        String redis = text("redis");
        if (!redis.equals("single") && !redis.equals("single,cluster")) {
            throw bad("redis", redis, "use single (the default) or single,cluster");
        }
        cluster = redis.equals("single,cluster");
        String eos = text("exactly-once");
        exactlyOnce = switch (eos) {
            case "off" -> List.of(false);
            case "on" -> List.of(true);
            case "off,on" -> List.of(false, true);
            default -> throw bad("exactly-once", eos, "use off (the default), on, or off,on");
        };
        records = positive("records");
        windows = positive("windows");
        warmup = count("warmup");
        claimRecords = positive("claim-records");
        claimBacklog = count("claim-backlog");
        batch = positive("batch");
        catchUpRecords = positive("catch-up-records");
        parkedRecords = positive("parked-records");
        parkedWarmupRecords = count("parked-warmup-records");
        peerCommand = peerCommand(text("peer-command"));
        peerHeader = text("peer-header");
        if (peerHeader.isBlank()) {
            throw bad(
                    "peer-header",
                    peerHeader,
                    "a header name, e.g. " + definition("peer-header").fallback());
        }
        startups = positive("startups");
        restarts = positive("restarts");
        startupRecords = positive("startup-records");
        startupBaselineJar = text("startup-baseline-jar").equals("none") ? null : Path.of(text("startup-baseline-jar"));
        startupBaselineCds = text("startup-baseline-cds").equals("none") ? null : Path.of(text("startup-baseline-cds"));
        startupBaselineJvm = text("startup-baseline-jvm").equals("none") ? List.of() : words("startup-baseline-jvm");
        bridgeCds = Path.of(text("bridge-cds"));
        bridgeOptions = text("bridge-options").equals("none") ? null : Path.of(text("bridge-options"));
        parkedIntakeRate = positive("parked-intake-rate");
        steadyRate = positive("steady-rate");
        steadySecondRate = count("steady-second-rate");
        steadySeconds = positive("steady-seconds");
        minDelayMillis =
                values.get("min-delay-ms").startsWith("--") ? count("min-delay-s") * 1000L : count("min-delay-ms");
        maxDelayMillis = values.get("max-delay-ms").startsWith("--")
                ? positive("max-delay-s") * 1000L
                : positive("max-delay-ms");
        if (minDelayMillis > maxDelayMillis) {
            String name = values.get("min-delay-ms").startsWith("--") ? "min-delay-s" : "min-delay-ms";
            throw bad(name, values.get(name), "at most the longest delay (" + delays() + ")");
        }
        steadyWarmupSeconds = count("steady-warmup-s");
        stepWarmupSeconds = count("step-warmup-s");
        rates = intList("rates");
        stepSeconds = positive("step-seconds");
        backlog = positive("backlog");
        layoutRecords = positive("layout-records");
        layoutValueBytes = intList("layout-value-bytes");
        far = new FarOptions(this);
        ruleRecords = positive("rule-records");
        springRetryRecords = positive("spring-retry-records");
        springRetryRate = positive("spring-retry-rate");
        seriesCount = positive("series-count");
        seriesSeconds = positive("series-seconds");
        svg = Path.of(text("svg"));
        keepWorkDir = Boolean.parseBoolean(text("keep-work-dir"));
        bridgeJvm = words("bridge-jvm");
        bridgeJar = Path.of(text("bridge-jar"));
        bridgeConfig = Path.of(text("bridge-config"));
    }

    /** The peer's command line for one drain: {@code --peer-command} with its placeholders filled in. */
    List<String> peerCommand(String bootstrap, String intake, String target, String group) {
        return peerCommand.stream()
                .map(arg -> arg.replace("{bootstrap}", bootstrap)
                        .replace("{intake}", intake)
                        .replace("{target}", target)
                        .replace("{group}", group))
                .toList();
    }

    /** "1-20 s", or "0-1000 ms" where a bound is not whole seconds. */
    String delays() {
        return minDelayMillis % 1000 == 0 && maxDelayMillis % 1000 == 0
                ? minDelayMillis / 1000 + "-" + maxDelayMillis / 1000 + " s"
                : minDelayMillis + "-" + maxDelayMillis + " ms";
    }

    /** Parses {@code --name value} pairs; throws {@link IllegalArgumentException} naming a bad option. */
    static BenchOptions parse(String... args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException(
                        "expected an option (--name value), got \"" + args[i] + "\"; --help lists them");
            }
            String name = OPTION_ALIASES.getOrDefault(args[i].substring(2), args[i].substring(2));
            if (definition(name) == null) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; --help lists them");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value, e.g. " + args[i] + " "
                        + definition(name).fallback());
            }
            values.put(name, args[++i]);
        }
        for (Definition d : DEFINITIONS) {
            values.putIfAbsent(d.name(), d.fallback());
        }
        return new BenchOptions(values);
    }

    static boolean wantsHelp(String... args) {
        return List.of(args).contains("--help") || List.of(args).contains("-h");
    }

    /** Every option with its default and what it sets. */
    static String help() {
        StringBuilder sb = new StringBuilder("usage: ./bench.sh [--name value]...\n\n");
        for (Definition d : DEFINITIONS) {
            sb.append(String.format("  --%-20s %s (default: %s)%n", d.name(), d.help(), d.fallback()));
        }
        sb.append(
                "\nKAFKA_BOOTSTRAP_SERVERS / REDIS_URI point the run at running servers; otherwise it starts its own.\n");
        return sb.toString();
    }

    boolean has(String scenario) {
        return scenarios.contains(scenario);
    }

    /** These options with only {@code only} of the chosen scenarios (the cluster pass). */
    BenchOptions withScenarios(List<String> only) {
        Map<String, String> copy = new LinkedHashMap<>(values);
        List<String> kept = scenarios.stream().filter(only::contains).toList();
        copy.put("scenario", kept.isEmpty() ? "" : String.join(",", kept));
        return new BenchOptions(copy);
    }

    @Override
    public String toString() {
        return values.entrySet().stream()
                .filter(e -> !e.getValue().equals(definition(e.getKey()).fallback()))
                .map(e -> "--" + e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(" ", "[", "]"));
    }

    private static List<String> scenarios(String text) {
        if (text.equals("all")) {
            return SCENARIOS;
        }
        List<String> chosen = new ArrayList<>();
        for (String s : text.split(",")) {
            String name = SCENARIO_ALIASES.getOrDefault(s.trim(), s.trim());
            if (name.isEmpty()) {
                continue;
            }
            if (!SCENARIOS.contains(name)) {
                throw new IllegalArgumentException("--scenario " + text + ": unknown scenario \"" + s.trim()
                        + "\"; use all, or some of " + String.join(",", SCENARIOS) + " separated by commas");
            }
            chosen.add(name);
        }
        return SCENARIOS.stream().filter(chosen::contains).toList(); // the run's order
    }

    private static List<String> peerCommand(String text) {
        if (text.equals("none")) {
            return List.of();
        }
        List<String> command = List.of(text.trim().split("\\s+"));
        if (!text.contains("{intake}") || !text.contains("{target}")) {
            throw bad(
                    "peer-command",
                    text,
                    "a command that names the topics it drains, {intake} and {target} (the "
                            + "run creates them), e.g. run-peer.sh {bootstrap} {intake} {target} {group}");
        }
        return command;
    }

    private static Definition definition(String name) {
        return DEFINITIONS.stream()
                .filter(d -> d.name().equals(name))
                .findFirst()
                .orElse(null);
    }

    String text(String name) {
        return values.get(name);
    }

    /** An option's value split at whitespace: JVM options and the like. */
    List<String> words(String name) {
        return List.of(text(name).trim().split("\\s+"));
    }

    int count(String name) {
        String raw = values.get(name);
        try {
            int value = Integer.parseInt(raw.replace("_", "").replace(",", ""));
            if (value < 0) {
                throw bad(name, raw, "a count of 0 or more");
            }
            return value;
        } catch (NumberFormatException e) {
            throw bad(name, raw, "a whole number, e.g. " + definition(name).fallback());
        }
    }

    int positive(String name) {
        int value = count(name);
        if (value == 0) {
            throw bad(name, values.get(name), "a number above 0");
        }
        return value;
    }

    private List<Integer> intList(String name) {
        String raw = values.get(name);
        List<Integer> list = new ArrayList<>();
        for (String part : raw.split(",")) {
            try {
                int value = Integer.parseInt(part.trim().replace("_", ""));
                if (value <= 0) {
                    throw bad(name, raw, "numbers above 0");
                }
                list.add(value);
            } catch (NumberFormatException e) {
                throw bad(
                        name,
                        raw,
                        "comma-separated whole numbers, e.g. "
                                + definition(name).fallback());
            }
        }
        return List.copyOf(list);
    }

    static IllegalArgumentException bad(String name, String value, String expected) {
        return new IllegalArgumentException("--" + name + " " + value + ": expected " + expected);
    }
}
