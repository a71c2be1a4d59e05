package io.delaybridge.bench;

import io.delaybridge.bench.BenchOptions.Definition;
import io.delaybridge.bench.BenchOptions.Kind;
import java.util.List;

/**
 * The far tier's options (scenarios far-layouts and far-thaw), defined and parsed apart from {@link BenchOptions},
 * which lists them with the others in {@code --help} and checks them the same way.
 */
final class FarOptions {

    /** far-thaw's two parts: the thaw's rate beside the plain copy, and steady lateness beside far records. */
    static final List<String> PARTS = List.of("rate", "lateness");

    static final List<Definition> DEFINITIONS = List.of(
            new Definition("far-records", Kind.INT, "1000000", "far-layouts: far-tier index entries per layout"),
            new Definition(
                    "far-chosen-only",
                    Kind.BOOL,
                    "false",
                    "far-layouts: only the layouts the store would use (for a run at 10,000,000)"),
            new Definition(
                    "far-tier-only",
                    Kind.BOOL,
                    "false",
                    "far-layouts: only the far tier as the store writes it, no candidate layouts"),
            new Definition(
                    "far-thaw-parts",
                    Kind.TEXT,
                    "rate,lateness",
                    "far-thaw: rate (the thaw beside the plain copy), lateness (steady beside far records), or both"),
            new Definition(
                    "far-thaw-records",
                    Kind.INT,
                    "1000000",
                    "far-thaw rate: records written far, then thawed all at once, beside the plain copy of as many"),
            new Definition(
                    "far-thaw-hours",
                    Kind.INT,
                    "1",
                    "far-thaw rate: whole hours over which those records are due, from the first hour 3 h ahead"),
            new Definition(
                    "far-pending",
                    Kind.INT,
                    "1000000",
                    "far-thaw lateness: far records pending beside the steady load (the target is stated at"
                            + " 10000000)"),
            new Definition(
                    "far-pending-hours",
                    Kind.INT,
                    "4",
                    "far-thaw lateness: whole hours over which those are due; the first comes into the hot window"
                            + " during the measured window and thaws beside it"),
            new Definition(
                    "far-thaw-at-s",
                    Kind.INT,
                    "10",
                    "far-thaw lateness: seconds into the measured window at which the first far hour starts to"
                            + " thaw"));

    /** far-layouts: entries per layout; only the chosen layouts; only the far tier as the store writes it. */
    final int records;

    final boolean chosenOnly;
    final boolean tierOnly;
    /** far-thaw: the parts to run, of {@link #PARTS}. */
    final List<String> thawParts;

    final int thawRecords;
    final int thawHours;
    final int pending;
    final int pendingHours;
    final int thawAtSeconds;

    FarOptions(BenchOptions options) {
        records = options.positive("far-records");
        chosenOnly = Boolean.parseBoolean(options.text("far-chosen-only"));
        tierOnly = Boolean.parseBoolean(options.text("far-tier-only"));
        String parts = options.text("far-thaw-parts");
        thawParts = List.of(parts.split(",")).stream().map(String::trim).toList();
        if (thawParts.isEmpty() || !PARTS.containsAll(thawParts)) {
            throw BenchOptions.bad("far-thaw-parts", parts, "rate, lateness, or rate,lateness");
        }
        thawRecords = options.positive("far-thaw-records");
        thawHours = options.positive("far-thaw-hours");
        pending = options.positive("far-pending");
        pendingHours = options.positive("far-pending-hours");
        thawAtSeconds = options.count("far-thaw-at-s");
    }
}
