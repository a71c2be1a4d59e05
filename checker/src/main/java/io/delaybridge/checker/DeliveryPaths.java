package io.delaybridge.checker;

import io.delaybridge.testkit.AdminMetrics;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * How many records the campaign's bridges delivered through the express path (straight from the intake, never stored
 * in Redis) and how many they parked: the meters {@code delay.intake.express} and {@code delay.intake.parked} of each
 * bridge's {@code /metrics}, read every second and just before each planned kill or stop, summed over every bridge
 * that ran. A bridge killed with SIGKILL, or halted at a crash point, loses what it counted since its last reading: the
 * sums are lower bounds. A bridge without the meters (before the express path) reads as absent: the report says n/a.
 */
final class DeliveryPaths {

    static final String EXPRESS = "delay.intake.express";
    static final String PARKED = "delay.intake.parked";

    /** The latest reading of each bridge (by name: each incarnation has its own), -1 for a meter never seen. */
    private final Map<String, long[]> latest = new LinkedHashMap<>();

    /** Files a {@code /metrics} body read from the bridge {@code bridge}; counts only grow within one bridge. */
    synchronized void record(String bridge, String metricsJson) {
        OptionalLong express = AdminMetrics.count(metricsJson, EXPRESS);
        OptionalLong parked = AdminMetrics.count(metricsJson, PARKED);
        long[] counts = latest.computeIfAbsent(bridge, b -> new long[] {-1, -1});
        counts[0] = Math.max(counts[0], express.orElse(-1));
        counts[1] = Math.max(counts[1], parked.orElse(-1));
    }

    /** The counts summed over the bridges; -1 where no bridge ever showed the meter. */
    synchronized Totals totals() {
        long express = -1;
        long parked = -1;
        for (long[] counts : latest.values()) {
            express = counts[0] < 0 ? express : Math.max(express, 0) + counts[0];
            parked = counts[1] < 0 ? parked : Math.max(parked, 0) + counts[1];
        }
        return new Totals(express, parked, latest.size());
    }

    /**
     * @param express records delivered through the express path, summed over the bridges; -1 if none had the meter
     * @param parked records stored in Redis first; -1 if none had the meter
     * @param bridges bridges read at least once
     */
    record Totals(long express, long parked, int bridges) {

        /** "express-path records: 1,200 (lower bound), parked: 98,800" or, without the meters, "0 ... n/a". */
        String render() {
            return String.format(
                            "express-path records: %s (lower bound), parked: %s",
                            express < 0 ? "0" : String.format("%,d", express),
                            parked < 0 ? "n/a" : String.format("%,d", parked))
                    + (express < 0 ? " (the bridges have no " + EXPRESS + " meter)" : "");
        }
    }
}
