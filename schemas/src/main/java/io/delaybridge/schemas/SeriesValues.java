package io.delaybridge.schemas;

import static io.delaybridge.schemas.SeriesHeaders.CRON;
import static io.delaybridge.schemas.SeriesHeaders.DST_GAP;
import static io.delaybridge.schemas.SeriesHeaders.DST_OVERLAP;
import static io.delaybridge.schemas.SeriesHeaders.END;
import static io.delaybridge.schemas.SeriesHeaders.EVERY;
import static io.delaybridge.schemas.SeriesHeaders.MIN_INTERVAL_MILLIS;
import static io.delaybridge.schemas.SeriesHeaders.ZONE;
import static io.delaybridge.schemas.SeriesHeaders.quote;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The value parsers of the series headers, apart so that each half stays readable. */
final class SeriesValues {

    private SeriesValues() {}

    static Series.Cron cron(Map<String, String> v) throws ContractViolation {
        CronSchedule schedule;
        try {
            schedule = CronSchedule.parse(v.get(CRON));
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_CRON, CRON + ": " + e.getMessage());
        }
        ZoneId zone = zone(v);
        Series.DstGap gap = choice(v, DST_GAP, Series.DstGap.class, Series.DstGap.SHIFT, ErrorCode.INVALID_DST_GAP);
        Series.DstOverlap overlap =
                choice(v, DST_OVERLAP, Series.DstOverlap.class, Series.DstOverlap.ONCE, ErrorCode.INVALID_DST_OVERLAP);
        return new Series.Cron(schedule, zone, gap, overlap);
    }

    static Series.Every every(Map<String, String> v) throws ContractViolation {
        String text = v.get(EVERY);
        long millis;
        try {
            millis = DelayText.parseDelayMillis(text);
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_INTERVAL, EVERY + ": " + e.getMessage());
        }
        if (millis < MIN_INTERVAL_MILLIS) {
            throw new ContractViolation(
                    ErrorCode.INVALID_INTERVAL,
                    EVERY + ": " + ContractViolation.quote(text)
                            + " is shorter than 1s; a series runs at most once a second");
        }
        for (String name : List.of(ZONE, DST_GAP, DST_OVERLAP)) {
            if (v.containsKey(name)) {
                throw new ContractViolation(
                        ErrorCode.ZONE_WITH_INTERVAL,
                        name + ": " + quote(v, name)
                                + " given with " + EVERY
                                + ", which counts elapsed time and ignores wall clocks; drop "
                                + name + ", or use " + CRON + " to follow the wall clock of a zone");
            }
        }
        return new Series.Every(millis);
    }

    private static ZoneId zone(Map<String, String> v) throws ContractViolation {
        String text = v.get(ZONE);
        if (text == null) {
            throw new ContractViolation(
                    ErrorCode.MISSING_ZONE,
                    "no " + ZONE + " for " + CRON + " " + quote(v, CRON)
                            + "; name the zone its wall times are in, e.g. Europe/Berlin or UTC");
        }
        String t = text.strip();
        try {
            ZoneId zone = ZoneId.of(t);
            if (!(zone instanceof ZoneOffset)
                    && !t.startsWith("UTC+")
                    && !t.startsWith("UTC-")
                    && !t.startsWith("GMT+")
                    && !t.startsWith("GMT-")
                    && !t.startsWith("UT+")
                    && !t.startsWith("UT-")) {
                return zone;
            }
        } catch (DateTimeException e) {
            // reported below
        }
        throw new ContractViolation(
                ErrorCode.INVALID_ZONE,
                ZONE + ": " + ContractViolation.quote(text)
                        + " is not an IANA time zone; use a name such as Europe/Berlin, America/New_York or UTC");
    }

    static long until(String text) throws ContractViolation {
        try {
            return DelayText.parseInstantMillis(text);
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_DELAY, DelayHeaders.UNTIL + ": " + e.getMessage());
        }
    }

    static long end(String text) throws ContractViolation {
        try {
            return DelayText.parseInstantMillis(text);
        } catch (IllegalArgumentException e) {
            throw new ContractViolation(ErrorCode.INVALID_END, END + ": " + e.getMessage());
        }
    }

    static <E extends Enum<E>> E choice(Map<String, String> v, String name, Class<E> type, E fallback, ErrorCode code)
            throws ContractViolation {
        String text = v.get(name);
        if (text == null) {
            return fallback;
        }
        String t = text.strip();
        for (E e : type.getEnumConstants()) {
            if (e.name().toLowerCase(Locale.ROOT).equals(t)) {
                return e;
            }
        }
        List<String> accepted = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            accepted.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new ContractViolation(
                code,
                name + ": " + ContractViolation.quote(text) + " is not one of "
                        + String.join(", ", accepted) + " (default "
                        + fallback.name().toLowerCase(Locale.ROOT)
                        + ")");
    }
}
