package io.delaybridge.bench;

import io.delaybridge.bench.BenchOptions.Definition;
import io.delaybridge.bench.BenchOptions.Kind;
import java.nio.file.Path;
import java.util.List;

/**
 * The definitions of the run's options and of every scenario's but the far tier's ({@link FarOptions}): name, kind,
 * default and help line, in the order {@code --help} lists them. {@link BenchOptions} parses and checks them.
 */
final class BenchOptionTable {

    private BenchOptionTable() {}

    static final List<Definition> DEFINITIONS = List.of(
            new Definition(
                    "scenario",
                    Kind.TEXT,
                    "all",
                    "comma-separated, or all: " + String.join(", ", BenchOptions.SCENARIOS)
                            + " (burst = parked-drain)"),
            new Definition(
                    "redis",
                    Kind.TEXT,
                    "single",
                    "single, or single,cluster (throughput and steady once more " + "on a 3-master Redis Cluster)"),
            new Definition(
                    "exactly-once",
                    Kind.TEXT,
                    "off",
                    "off, on, or off,on: the bridge's delivery.exactlyOnce "
                            + "(parked-drain, catch-up and steady run the bridge once per mode, beside one plain copy; restart once per mode)"),
            new Definition(
                    "records",
                    Kind.INT,
                    "1000000",
                    "limits: records the producer writes; throughput: records " + "of each measured window"),
            new Definition("windows", Kind.INT, "3", "throughput: measured windows (the median counts)"),
            new Definition("warmup", Kind.INT, "2000000", "throughput: warm-up records before the windows"),
            new Definition("claim-records", Kind.INT, "200000", "limits: records through the store's claim path"),
            new Definition(
                    "claim-backlog", Kind.INT, "1000000", "limits: not-due records beside the second claim " + "probe"),
            new Definition("batch", Kind.INT, "500", "limits: claim batch size"),
            new Definition("catch-up-records", Kind.INT, "300000", "catch-up: records preloaded, already due"),
            new Definition(
                    "peer-command",
                    Kind.TEXT,
                    "none",
                    "catch-up: another scheduler to drain the same load "
                            + "after the bridge, started cold by this command (split at spaces; {bootstrap}, {intake}, "
                            + "{target}, {group} are filled in) and stopped by SIGTERM; its records carry --peer-header too"),
            new Definition(
                    "peer-header",
                    Kind.TEXT,
                    "publish-after-ts",
                    "catch-up: the header in which the peer's " + "records carry their due time (epoch ms)"),
            new Definition("startups", Kind.INT, "10", "startup: rounds; each starts every variant once, cold"),
            new Definition(
                    "restarts",
                    Kind.INT,
                    "3",
                    "restart: rounds; each kills one bridge with SIGKILL and stops one with SIGTERM, each restarted at once"),
            new Definition(
                    "startup-records",
                    Kind.INT,
                    "1000",
                    "startup: records due now that wait in the intake " + "before each start"),
            new Definition(
                    "startup-baseline-jar",
                    Kind.TEXT,
                    "none",
                    "startup, restart, sharing: another build of the bridge's fat jar "
                            + "to run beside it (e.g. of the previous release), or none"),
            new Definition(
                    "startup-baseline-cds", Kind.TEXT, "none", "startup: the baseline jar's CDS archive, or " + "none"),
            new Definition(
                    "startup-baseline-jvm",
                    Kind.TEXT,
                    "none",
                    "startup, restart: JVM options of the baseline jar after --bridge-jvm and its archive (it does "
                            + "not get --bridge-options), e.g. @bridge/jvm.options or -Dsome.flag=1, or none"),
            new Definition(
                    "bridge-cds",
                    Kind.TEXT,
                    "bridge/target/delay-bridge.jsa",
                    "the bridge's class-data-"
                            + "sharing archive, made with the jar: every bridge starts with it, as shipped, where the file "
                            + "exists (startup also starts one without it)"),
            new Definition(
                    "bridge-options",
                    Kind.TEXT,
                    "bridge/jvm.options",
                    "the bridge's shipped JVM options, an argument file passed as @file to every bridge started "
                            + "as shipped (with --bridge-cds), or none"),
            new Definition(
                    "parked-records",
                    Kind.INT,
                    "1000000",
                    "parked-drain: records parked, due at one instant " + "(old name --burst)"),
            new Definition(
                    "parked-warmup-records",
                    Kind.INT,
                    "0",
                    "parked-drain: records each bridge drains first, not measured, so that its code and the broker's "
                            + "for the mode are compiled, as in a service that has run a while; 0 (the default) "
                            + "measures a cold drain"),
            new Definition(
                    "parked-intake-rate",
                    Kind.INT,
                    "20000",
                    "parked-drain: intake rate assumed to place the "
                            + "due instant after the last record is stored (old name --burst-intake-rate)"),
            new Definition("steady-rate", Kind.INT, "5000", "steady (and backlog): records due a second"),
            new Definition(
                    "steady-second-rate",
                    Kind.INT,
                    "0",
                    "steady: a second step at this rate, e.g. 20000; 0 " + "for none"),
            new Definition("steady-seconds", Kind.INT, "60", "steady: measured window per step, seconds"),
            new Definition("min-delay-s", Kind.INT, "1", "steady: shortest delay, seconds"),
            new Definition("max-delay-s", Kind.INT, "120", "steady: longest delay, seconds"),
            new Definition(
                    "min-delay-ms",
                    Kind.TEXT,
                    "--min-delay-s",
                    "steady: shortest delay in ms, e.g. 0 (in " + "place of --min-delay-s)"),
            new Definition(
                    "max-delay-ms",
                    Kind.TEXT,
                    "--max-delay-s",
                    "steady: longest delay in ms, e.g. 1000 (in " + "place of --max-delay-s)"),
            new Definition(
                    "steady-warmup-s",
                    Kind.INT,
                    "120",
                    "steady, saturation: warm-up of a fresh bridge's " + "first step, seconds"),
            new Definition("step-warmup-s", Kind.INT, "40", "warm-up of later steps on a running bridge, seconds"),
            new Definition(
                    "rates",
                    Kind.INT_LIST,
                    "5000,10000,20000,30000,40000,60000",
                    "saturation: due rates " + "of the steps"),
            new Definition("step-seconds", Kind.INT, "20", "saturation: measured window per step, seconds"),
            new Definition("backlog", Kind.INT, "1000000", "backlog: pending records"),
            new Definition("layout-records", Kind.INT, "200000", "layouts: messages per layout"),
            new Definition("layout-value-bytes", Kind.INT_LIST, "200,240,260", "layouts: value sizes"),
            new Definition("rule-records", Kind.INT, "200000", "rules: records through the rule and the copy"),
            new Definition(
                    "spring-retry-records",
                    Kind.INT,
                    "10000",
                    "spring-retry: failing records, each retried"
                            + " once after 1 s, through the bridge and through @RetryableTopic"),
            new Definition(
                    "spring-retry-rate",
                    Kind.INT,
                    "100",
                    "spring-retry: records produced a second (below"
                            + " what a failing listener thread handles, so lateness is the retry's, not a backlog's)"),
            new Definition(
                    "series-count",
                    Kind.INT,
                    "10000",
                    "series: series due every second (and the one-shot records a second beside them)"),
            new Definition(
                    "series-seconds", Kind.INT, "300", "series: seconds each series runs, and the one-shot window"),
            new Definition(
                    "svg",
                    Kind.TEXT,
                    Path.of(System.getProperty("java.io.tmpdir"), "delay-bench-lateness.svg")
                            .toString(),
                    "saturation: where the lateness plot goes"),
            new Definition("keep-work-dir", Kind.BOOL, "false", "keep the broker's and Redis' files"),
            new Definition(
                    "bridge-jvm", Kind.TEXT, "-Xms128m -Xmx256m -XX:+UseParallelGC", "the bridge JVM's " + "options"),
            new Definition("bridge-jar", Kind.TEXT, "bridge/target/delay-bridge.jar", "the bridge's fat jar"),
            new Definition("bridge-config", Kind.TEXT, "bridge/config.yml", "the bridge's configuration"));
}
