package io.delaybridge.bridge.store.redis;

import java.nio.charset.StandardCharsets;

/**
 * A long as the ASCII decimal Redis reads as a number, written straight into its bytes: the intake sends two per
 * message (due time and timestamp), and {@code Long.toString(n).getBytes()} makes a string and a copy for each.
 */
final class Decimal {

    private Decimal() {}

    /** The same bytes as {@code Long.toString(value).getBytes(US_ASCII)}. */
    static byte[] ascii(long value) {
        if (value < 0) {
            return Long.toString(value).getBytes(StandardCharsets.US_ASCII); // rare: not worth a second path
        }
        int digits = 1;
        for (long rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        byte[] out = new byte[digits];
        long rest = value;
        for (int i = digits - 1; i >= 0; i--) {
            out[i] = (byte) ('0' + (int) (rest % 10));
            rest /= 10;
        }
        return out;
    }
}
