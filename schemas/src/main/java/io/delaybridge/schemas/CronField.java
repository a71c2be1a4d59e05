package io.delaybridge.schemas;

import java.util.Locale;

/** The six fields in six-field order, each with its range and names. */
enum CronField {
    SECOND("second", 0, 59, null),
    MINUTE("minute", 0, 59, null),
    HOUR("hour", 0, 23, null),
    DAY_OF_MONTH("day of month", 1, 31, null),
    MONTH("month", 1, 12, Names.MONTHS),
    DAY_OF_WEEK("day of week", 0, 7, Names.DAYS);

    private final String label;
    private final int min;
    private final int max;
    private final String[] names;

    CronField(String label, int min, int max, String[] names) {
        this.label = label;
        this.min = min;
        this.max = max;
        this.names = names;
    }

    long parse(String text, String field) {
        long mask = 0;
        for (String item : field.split(",", -1)) {
            mask |= item(text, item);
        }
        if (this == DAY_OF_WEEK && CronSchedule.has(mask, 7)) {
            mask = (mask | 1L) & ~(1L << 7);
        }
        return mask;
    }

    private long item(String text, String item) {
        int slash = item.indexOf('/');
        String base = slash < 0 ? item : item.substring(0, slash);
        int step = slash < 0 ? 1 : number(text, item.substring(slash + 1), "step", 1, max);
        int[] range = range(text, item, base, slash >= 0);
        long mask = 0;
        for (int v = range[0]; v <= range[1]; v += step) {
            mask |= 1L << v;
        }
        return mask;
    }

    /** {@code *}, {@code ?}, {@code a}, {@code a-b}, or {@code a} before a step (a to the end). */
    private int[] range(String text, String item, String base, boolean stepped) {
        int last = this == DAY_OF_WEEK ? 6 : max;
        if (base.equals("*") || (base.equals("?") && (this == DAY_OF_MONTH || this == DAY_OF_WEEK))) {
            return new int[] {min, last};
        }
        int dash = base.indexOf('-', 1);
        int from = value(text, dash < 0 ? base : base.substring(0, dash));
        if (dash < 0) {
            return new int[] {from, stepped ? last : from};
        }
        int to = value(text, base.substring(dash + 1));
        if (to < from) {
            throw bad(text, item, "the range runs backwards");
        }
        return new int[] {from, to};
    }

    private int value(String text, String token) {
        if (names != null) {
            String upper = token.toUpperCase(Locale.ROOT);
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(upper)) {
                    return this == MONTH ? i + 1 : i;
                }
            }
        }
        return number(text, token, "value", min, max);
    }

    private int number(String text, String token, String what, int lo, int hi) {
        boolean digits = !token.isEmpty() && token.length() <= 2 && DelayText.allAsciiDigits(token);
        int v = digits ? Integer.parseInt(token) : -1;
        if (v < lo || v > hi) {
            String accepted = what.equals("step")
                    ? "a step of " + lo + "-" + hi
                    : lo + "-" + hi + (names == null ? "" : " or " + names[0] + "-" + names[names.length - 1]);
            throw bad(
                    text,
                    token,
                    "not a " + label + " " + what + "; use " + accepted
                            + (digits || token.isEmpty() ? "" : " (L, W and # are not supported)"));
        }
        return v;
    }

    private IllegalArgumentException bad(String text, String token, String reason) {
        return CronSchedule.notCron(text, label + " " + ContractViolation.quote(token) + ": " + reason);
    }

    /** Month and weekday names, apart because enum constants cannot refer to the enum's own static fields. */
    private static final class Names {
        private static final String[] MONTHS = {
            "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
        };
        private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

        private Names() {}
    }
}
