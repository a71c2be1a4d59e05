package io.delaybridge.checker;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The figures of one campaign and whether the guarantees held: nothing lost silently (a record {@code delete-far}
 * deleted while it waited far is lost on purpose, and must be reported by a bridge), nothing early, every copy with its
 * own delay-id, nothing left in Redis, and duplicates no more than the crash windows allow (none without faults or
 * with graceful rebalances only).
 */
record CampaignReport(
        String command,
        int records,
        long sent,
        long acknowledged,
        long sendFailures,
        long lost,
        long duplicates,
        long duplicatedRecords,
        long duplicateBound,
        long early,
        List<String> earlyExamples,
        long deadlettered,
        long wrongIds,
        List<String> wrongIdExamples,
        FarLoss farLoss,
        long[] latenessPercentiles,
        List<String> lateByFault,
        Map<Fault, Integer> faults,
        List<String> faultLog,
        List<String> notes,
        RedisLeftovers leftoversAfterDrain,
        RedisLeftovers leftoversAfterStop,
        Map<String, Integer> stopStatuses,
        CampaignOptions.RedisTopology redis,
        List<PendingSpread.Sample> pendingSamples,
        DeliveryPaths.Totals paths,
        double seconds) {

    static final double[] PERCENTILES = {50, 99, 99.9, 100};

    /** Whether only faults that end nothing abruptly ran: then not a single duplicate is allowed. */
    boolean gracefulOnly() {
        return faults.keySet().stream().allMatch(f -> f == Fault.REBALANCE || f == Fault.DELETE_FAR);
    }

    /** Lost records a bridge reported, below a point delete-far deleted up to. */
    long reportedLost() {
        return farLoss.check().reported().size();
    }

    /** Lost records no bridge reported, or that no deletion explains. */
    long silentLost() {
        return lost - reportedLost();
    }

    List<String> violations() {
        List<String> v = new ArrayList<>();
        if (silentLost() > 0) {
            long below = farLoss.check().silentBelowDeletion().size();
            v.add(silentLost() + " acknowledged records never arrived"
                    + (below > 0
                            ? " and no bridge reported them lost (" + below + " of them below a delete-far point)"
                            : reportedLost() > 0 ? " besides those the bridges reported lost" : ""));
        }
        if (early > 0) {
            v.add(early + " records arrived before they were due");
        }
        if (wrongIds > 0) {
            v.add(wrongIds + " copies with an unexpected delay-id");
        }
        if (gracefulOnly() ? duplicates > 0 : duplicates > duplicateBound) {
            v.add(duplicates + " duplicates, more than the " + (gracefulOnly() ? 0 : duplicateBound) + " allowed");
        }
        if (!leftoversAfterDrain.empty() || !leftoversAfterStop.empty()) {
            v.add("Redis still holds " + leftoversAfterStop + " after the campaign (" + leftoversAfterDrain
                    + " after draining)");
        }
        if (acknowledged == 0) {
            v.add("the broker acknowledged no record");
        }
        return v;
    }

    /** The servers ({@code host:port}) that held pending messages in at least one sample while the load ran. */
    java.util.Set<String> serversWithPending() {
        java.util.Set<String> servers = new java.util.TreeSet<>();
        for (PendingSpread.Sample sample : pendingSamples) {
            sample.pendingByServer().forEach((server, pending) -> {
                if (pending > 0) {
                    servers.add(server);
                }
            });
        }
        return servers;
    }

    boolean passed() {
        return violations().isEmpty();
    }

    static long[] percentiles(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        long[] result = new long[PERCENTILES.length];
        for (int i = 0; i < PERCENTILES.length; i++) {
            if (sorted.length == 0) {
                result[i] = -1;
            } else {
                int index = (int) Math.ceil(PERCENTILES[i] * sorted.length / 100.0 - 1e-9) - 1; // nearest rank
                result[i] = sorted[Math.max(0, Math.min(sorted.length - 1, index))];
            }
        }
        return result;
    }

    String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("== fault campaign ==\n");
        sb.append("options:        ").append(command).append('\n');
        sb.append(String.format(
                "records:        %,d planned, %,d sent, %,d acknowledged by the broker, %,d sends "
                        + "failed (not counted)%n",
                records, sent, acknowledged, sendFailures));
        sb.append("faults:         ").append(Fault.describe(faults)).append('\n');
        sb.append(String.format("lost:           %,d%n", lost));
        if (faults.containsKey(Fault.DELETE_FAR)) {
            sb.append(String.format(
                    "  reported lost (delete-far): %,d (below a deletion point, named by a bridge's ERROR; %d such"
                            + " lines logged)%n",
                    reportedLost(), farLoss.errorLines()));
            farLoss.deletions().forEach(d -> sb.append("    ").append(d).append('\n'));
            if (farLoss.namedButArrived() > 0) {
                sb.append(String.format(
                        "    %,d records named lost by a bridge arrived all the same (a false alarm, not a loss)%n",
                        farLoss.namedButArrived()));
            }
        }
        sb.append(String.format("  silent lost:    %,d%n", silentLost()));
        farLoss.check()
                .silentExamples(5)
                .forEach(e -> sb.append("                ").append(e).append('\n'));
        sb.append(String.format(
                "duplicates:     %,d extra copies of %,d records (allowed: %s)%n",
                duplicates,
                duplicatedRecords,
                gracefulOnly()
                        ? "0, no crash"
                        : command.contains("--exactly-once on")
                                ? "0, exactly once, read read_committed"
                                : "<= " + duplicateBound + ", the in-flight " + "bound summed over crash windows"));
        sb.append(String.format("early:          %,d%n", early));
        earlyExamples.forEach(e -> sb.append("                ").append(e).append('\n'));
        sb.append(String.format("wrong delay-id: %,d%n", wrongIds));
        wrongIdExamples.forEach(e -> sb.append("                ").append(e).append('\n'));
        sb.append(String.format("deadlettered:   %,d%n", deadlettered));
        sb.append(String.format(
                "lateness ms:    p50 %d, p99 %d, p99.9 %d, max %d (first arrival minus due, broker " + "clock)%n",
                latenessPercentiles[0], latenessPercentiles[1], latenessPercentiles[2], latenessPercentiles[3]));
        sb.append("late by fault:  the first fault begun while a record waited, else the last begun before\n");
        lateByFault.forEach(line -> sb.append("                ").append(line).append('\n'));
        sb.append("delivery paths: ").append(paths.render()).append('\n');
        sb.append(String.format(
                "                (the meters of %d bridges, read every second and before each "
                        + "planned kill or stop; a bridge killed -9 or halted at a crash point loses what it counted since "
                        + "its last reading)%n",
                paths.bridges()));
        sb.append("redis:          ")
                .append(
                        redis == CampaignOptions.RedisTopology.CLUSTER
                                ? "cluster of 3 masters with a replica each"
                                : "one redis-server")
                .append('\n');
        sb.append("pending spread: share of the stored, undelivered messages (due and in flight) per master, sampled "
                        + "every second while the load ran")
                .append('\n');
        for (String line : PendingSpread.describe(pendingSamples)) {
            sb.append("                ").append(line).append('\n');
        }
        sb.append("redis after drain: ").append(leftoversAfterDrain).append('\n');
        sb.append("redis after stop:  ").append(leftoversAfterStop).append('\n');
        sb.append("bridge exits on SIGTERM: ").append(stopStatuses).append('\n');
        sb.append(String.format("duration:       %.0f s%n", seconds));
        if (!faultLog.isEmpty()) {
            sb.append("fault log:\n");
            faultLog.forEach(line -> sb.append("  ").append(line).append('\n'));
        }
        notes.forEach(n -> sb.append("note: ").append(n).append('\n'));
        List<String> violations = violations();
        sb.append(violations.isEmpty() ? "RESULT: PASS\n" : "RESULT: FAIL\n");
        violations.forEach(v -> sb.append("  violated: ").append(v).append('\n'));
        return sb.toString();
    }
}
