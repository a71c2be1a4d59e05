package io.delaybridge.checker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The losses the bridges reported: the thaw's ERROR lines ({@code ThawMetrics#lost}) in the bridges' logs, e.g.
 * {@code 12 far records of shard 3 (due in the hour from 2026-11-25T08:00:00Z) are gone from intake partition 3,
 * offsets 100-108, 110, 113-114: deleted by retention ...}. A line names at most 20 ranges and counts the rest
 * ({@code , and 57 more offsets}): those lie above the last range named.
 */
final class FarLossLog {

    private static final Pattern LINE = Pattern.compile("(\\d+) far records? of shard (\\d+) \\(due in the hour from"
            + " [^)]*\\) are gone from intake partition (\\d+), offsets (.*?): deleted by retention or an operator");
    private static final Pattern MORE = Pattern.compile("and (\\d+) more offsets?");
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");

    /**
     * One ERROR line: {@code count} offsets of {@code partition} gone, the first of them named as inclusive ranges
     * ({@code [first, last]}, ascending), {@code more} of them only counted (all above the last range named).
     */
    record Report(int shard, int partition, int count, List<long[]> ranges, int more) {

        long lastNamed() {
            return ranges.isEmpty() ? -1 : ranges.get(ranges.size() - 1)[1];
        }
    }

    private FarLossLog() {}

    /** The report in one log line, if it is a thaw's ERROR line of lost far records. */
    static Optional<Report> parse(String line) {
        if (!line.contains("ERROR")) {
            return Optional.empty();
        }
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        List<long[]> ranges = new ArrayList<>();
        int more = 0;
        for (String part : m.group(4).split(", ")) {
            Matcher moreMatch = MORE.matcher(part);
            Matcher range = RANGE.matcher(part);
            if (moreMatch.matches()) {
                more = Integer.parseInt(moreMatch.group(1));
            } else if (range.matches()) {
                long first = Long.parseLong(range.group(1));
                ranges.add(new long[] {first, range.group(2) == null ? first : Long.parseLong(range.group(2))});
            } else {
                throw new IllegalArgumentException("a far-loss line with offsets the checker cannot read: " + line);
            }
        }
        return Optional.of(new Report(
                Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(1)),
                List.copyOf(ranges),
                more));
    }

    /** Every such report in the {@code *.log} files of {@code bridgeLogs} (one per bridge started). */
    static List<Report> read(Path bridgeLogs) {
        List<Report> reports = new ArrayList<>();
        if (!Files.isDirectory(bridgeLogs)) {
            return reports;
        }
        try (Stream<Path> files = Files.list(bridgeLogs)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        parse(line).ifPresent(reports::add);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return reports;
    }
}
