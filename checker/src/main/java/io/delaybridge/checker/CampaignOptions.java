package io.delaybridge.checker;

import io.delaybridge.schemas.DelayText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a fault campaign does: how many records, which faults how often, and how the bridges are set up.
 *
 * <pre>
 *   --records N          records to produce (default 20000)
 *   --seed S             seeds the delays, the fault order and the victims (default 1)
 *   --rate R             records per second the producer sends at most (default 2000)
 *   --max-delay D        longest random delay (default 20s)
 *   --targets T          target topics (default 3)
 *   --partitions P       intake partitions = shards (default 8)
 *   --bridges B          bridge instances (default 2)
 *   --lease D            the bridges' pump lease (default 10s)
 *   --faults LIST        comma-separated KIND=COUNT, or none, or full:
 *                        crash-store, crash-claim, crash-send (named crash points), kill (kill -9 at random),
 *                        redis (kill -9 + restart; on a cluster, of a master), broker (kill -9 + restart),
 *                        rebalance (add a bridge, remove it gracefully), zombie (SIGSTOP longer than the lease, then SIGCONT),
 *                        delete-far (deleteRecords on an intake partition below far records still waiting; needs
 *                        --hot-window; loses those records on purpose: they must be reported, never silent; not in full).
 *                        full = crash-store=5,crash-claim=5,crash-send=5,kill=5,redis=5,broker=3,rebalance=10,zombie=5
 *   --fault-gap D        pause between faults (default 5s)
 *   --rebalance-hold D   how long an added bridge stays (default 30s)
 *   --clock-shift LIST   host clock shift per bridge, cycled: e.g. +1h,-1h (default none)
 *   --clock-shift-mode M faketime (libfaketime, the whole process) or java (the bridge's Clock only);
 *                        default: faketime where installed
 *   --work-dir DIR       broker, Redis and bridge logs (default target/fault-campaign)
 *   --redis TOPOLOGY     standalone (one redis-server, the default) or cluster: three masters with a replica each;
 *                        there the fault redis is kill -9 of a master (its replica takes over, the old master
 *                        comes back as a replica) and the report shows how the pending messages spread over the
 *                        masters
 *   --exactly-once M     off (the default) or on: the bridges deliver in Kafka transactions (delivery.exactlyOnce)
 *                        and the checker reads the targets read_committed; then 0 duplicates are allowed
 *   --brokers N          Kafka nodes (default 1): 3 is a cluster of three KRaft nodes, every topic with a replica on
 *                        each and min.insync.replicas 2; there the fault broker is kill -9 of the node that
 *                        coordinates the bridges' consumer group (it moves to another node), then its restart
 *   --hot-window W       the bridges' intake.hotWindow (DELAY_HOT_WINDOW): e.g. 2s sends most records through the
 *                        far tier (their payload waits in the intake, the thaw stores them hot); default: the
 *                        shipped config's
 * </pre>
 */
public record CampaignOptions(
        int records,
        long seed,
        int rate,
        Duration maxDelay,
        int targets,
        int partitions,
        int bridges,
        Duration lease,
        Map<Fault, Integer> faults,
        Duration faultGap,
        Duration rebalanceHold,
        List<String> clockShifts,
        ClockShiftMode clockShiftMode,
        Path workDir,
        RedisTopology redis,
        boolean exactlyOnce,
        String hotWindow,
        int brokers) {

    /**
     * What the bridges store in: one durable redis-server, or a Redis Cluster of three masters with one replica each
     * (the bridges get all masters as seeds; the fault {@code redis} then kills a master and its replica takes over).
     */
    public enum RedisTopology {
        STANDALONE,
        CLUSTER
    }

    /** How a bridge's clock is shifted. */
    public enum ClockShiftMode {
        FAKETIME,
        JAVA
    }

    public static CampaignOptions defaults() {
        return new CampaignOptions(
                20_000,
                1,
                2000,
                Duration.ofSeconds(20),
                3,
                8,
                2,
                Duration.ofSeconds(10),
                new EnumMap<>(Fault.class),
                Duration.ofSeconds(5),
                Duration.ofSeconds(30),
                List.of(),
                FaketimeCheck.installed() ? ClockShiftMode.FAKETIME : ClockShiftMode.JAVA,
                Path.of("target", "fault-campaign"),
                RedisTopology.STANDALONE,
                false,
                "",
                1);
    }

    public static CampaignOptions parse(String[] args) {
        CampaignOptions o = defaults();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String v = args[++i];
            o = switch (name) {
                case "--records" -> o.withRecords(Integer.parseInt(v));
                case "--seed" -> o.edit(b -> b.seed = Long.parseLong(v));
                case "--rate" -> o.edit(b -> b.rate = Integer.parseInt(v));
                case "--max-delay" -> o.edit(b -> b.maxDelay = duration(v));
                case "--targets" -> o.edit(b -> b.targets = Integer.parseInt(v));
                case "--partitions" -> o.edit(b -> b.partitions = Integer.parseInt(v));
                case "--bridges" -> o.edit(b -> b.bridges = Integer.parseInt(v));
                case "--lease" -> o.withLease(duration(v));
                case "--faults" -> o.withFaults(faults(v));
                case "--fault-gap" -> o.withGaps(duration(v), o.rebalanceHold);
                case "--rebalance-hold" -> o.withGaps(o.faultGap, duration(v));
                case "--clock-shift" ->
                    o.withClockShifts(v.equals("none") ? List.of() : List.of(v.split(",")), o.clockShiftMode);
                case "--clock-shift-mode" ->
                    o.withClockShifts(o.clockShifts, ClockShiftMode.valueOf(v.toUpperCase(java.util.Locale.ROOT)));
                case "--work-dir" -> o.withWorkDir(Path.of(v));
                case "--redis" -> o.withRedis(redisTopology(v));
                case "--exactly-once" -> o.withExactlyOnce(onOff(v));
                case "--hot-window" -> o.withHotWindow(v);
                case "--brokers" -> o.withBrokers(Integer.parseInt(v));
                default ->
                    throw new IllegalArgumentException("unknown option " + name
                            + "; see the Javadoc of CampaignOptions or README.md, section Fault campaign");
            };
        }
        o.check();
        return o;
    }

    /** Refuses combinations that cannot run: delete-far without a far tier to delete from. */
    void check() {
        if (brokers < 1 || brokers > 5) {
            throw new IllegalArgumentException("--brokers " + brokers + ": use 1 (one broker) to 5; 3 is a cluster"
                    + " that keeps every partition and its quorum with one node down");
        }
        if (faults.containsKey(Fault.DELETE_FAR) && (hotWindow.isEmpty() || hotWindow.equals("off"))) {
            throw new IllegalArgumentException("--faults delete-far needs --hot-window (e.g. --hot-window 2s): it"
                    + " deletes intake records whose far entries still wait, and with the shipped hot window of an"
                    + " hour the campaign's records of seconds are all hot");
        }
    }

    /** The hot window in milliseconds; only with {@code --hot-window} set. */
    long hotWindowMillis() {
        return DelayText.parseDelayMillis(hotWindow);
    }

    public CampaignOptions withRecords(int n) {
        return edit(b -> b.records = n);
    }

    public CampaignOptions withRate(int r) {
        return edit(b -> b.rate = r);
    }

    public CampaignOptions withMaxDelay(Duration d) {
        return edit(b -> b.maxDelay = d);
    }

    public CampaignOptions withLease(Duration l) {
        return edit(b -> b.lease = l);
    }

    public CampaignOptions withFaults(Map<Fault, Integer> f) {
        return edit(b -> b.faults = f);
    }

    public CampaignOptions withGaps(Duration gap, Duration hold) {
        return edit(b -> {
            b.faultGap = gap;
            b.rebalanceHold = hold;
        });
    }

    public CampaignOptions withClockShifts(List<String> shifts, ClockShiftMode mode) {
        return edit(b -> {
            b.clockShifts = List.copyOf(shifts);
            b.clockShiftMode = mode;
        });
    }

    public CampaignOptions withRedis(RedisTopology topology) {
        return edit(b -> b.redis = topology);
    }

    public CampaignOptions withExactlyOnce(boolean on) {
        return edit(b -> b.exactlyOnce = on);
    }

    /** The bridges' {@code intake.hotWindow} ({@code DELAY_HOT_WINDOW}); empty: the shipped default. */
    public CampaignOptions withHotWindow(String window) {
        return edit(b -> b.hotWindow = window);
    }

    /** Kafka nodes: 1, or a cluster ({@code --brokers 3}). */
    public CampaignOptions withBrokers(int n) {
        return edit(b -> b.brokers = n);
    }

    public CampaignOptions withWorkDir(Path dir) {
        return edit(b -> b.workDir = dir);
    }

    /** The command-line form of these options, for the report. */
    public String commandLine() {
        List<String> parts = new ArrayList<>(List.of(
                "--records",
                Integer.toString(records),
                "--seed",
                Long.toString(seed),
                "--rate",
                Integer.toString(rate),
                "--max-delay",
                maxDelay.toMillis() + "ms",
                "--targets",
                Integer.toString(targets),
                "--partitions",
                Integer.toString(partitions),
                "--bridges",
                Integer.toString(bridges),
                "--lease",
                lease.toMillis() + "ms",
                "--faults",
                Fault.describe(faults),
                "--fault-gap",
                faultGap.toMillis() + "ms",
                "--rebalance-hold",
                rebalanceHold.toMillis() + "ms"));
        if (!clockShifts.isEmpty()) {
            parts.addAll(List.of(
                    "--clock-shift",
                    String.join(",", clockShifts),
                    "--clock-shift-mode",
                    clockShiftMode.name().toLowerCase(java.util.Locale.ROOT)));
        }
        if (redis != RedisTopology.STANDALONE) {
            parts.addAll(List.of("--redis", redis.name().toLowerCase(java.util.Locale.ROOT)));
        }
        if (exactlyOnce) {
            parts.addAll(List.of("--exactly-once", "on"));
        }
        if (!hotWindow.isEmpty()) {
            parts.addAll(List.of("--hot-window", hotWindow));
        }
        if (brokers != 1) {
            parts.addAll(List.of("--brokers", Integer.toString(brokers)));
        }
        return String.join(" ", parts);
    }

    private static boolean onOff(String text) {
        return switch (text) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--exactly-once " + text + ": use on or off");
        };
    }

    private static RedisTopology redisTopology(String text) {
        for (RedisTopology t : RedisTopology.values()) {
            if (t.name().equalsIgnoreCase(text)) {
                return t;
            }
        }
        throw new IllegalArgumentException("--redis " + text + ": use standalone (one redis-server) or cluster "
                + "(three masters with a replica each)");
    }

    static Map<Fault, Integer> faults(String text) {
        Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
        if (text.equals("none")) {
            return faults;
        }
        if (text.equals("full")) {
            return faults("crash-store=5,crash-claim=5,crash-send=5,kill=5,redis=5,broker=3,rebalance=10,zombie=5");
        }
        for (String part : text.split(",")) {
            String[] kv = part.split("=", 2);
            faults.merge(
                    Fault.fromName(kv[0].trim()), kv.length == 2 ? Integer.parseInt(kv[1].trim()) : 1, Integer::sum);
        }
        return faults;
    }

    private static Duration duration(String text) {
        return Duration.ofMillis(DelayText.parseDelayMillis(text));
    }

    /** A copy of these options with {@code change} applied to its fields: one place that lists them all. */
    private CampaignOptions edit(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.build();
    }

    /** The options' fields, to be changed one at a time ({@link #edit}). */
    private static final class Fields {
        int records;
        long seed;
        int rate;
        Duration maxDelay;
        int targets;
        int partitions;
        int bridges;
        Duration lease;
        Map<Fault, Integer> faults;
        Duration faultGap;
        Duration rebalanceHold;
        List<String> clockShifts;
        ClockShiftMode clockShiftMode;
        Path workDir;
        RedisTopology redis;
        boolean exactlyOnce;
        String hotWindow;
        int brokers;

        Fields(CampaignOptions o) {
            records = o.records;
            seed = o.seed;
            rate = o.rate;
            maxDelay = o.maxDelay;
            targets = o.targets;
            partitions = o.partitions;
            bridges = o.bridges;
            lease = o.lease;
            faults = o.faults;
            faultGap = o.faultGap;
            rebalanceHold = o.rebalanceHold;
            clockShifts = o.clockShifts;
            clockShiftMode = o.clockShiftMode;
            workDir = o.workDir;
            redis = o.redis;
            exactlyOnce = o.exactlyOnce;
            hotWindow = o.hotWindow;
            brokers = o.brokers;
        }

        CampaignOptions build() {
            return new CampaignOptions(
                    records,
                    seed,
                    rate,
                    maxDelay,
                    targets,
                    partitions,
                    bridges,
                    lease,
                    faults,
                    faultGap,
                    rebalanceHold,
                    clockShifts,
                    clockShiftMode,
                    workDir,
                    redis,
                    exactlyOnce,
                    hotWindow,
                    brokers);
        }
    }
}
