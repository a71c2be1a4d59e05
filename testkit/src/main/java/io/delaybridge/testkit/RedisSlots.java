package io.delaybridge.testkit;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key-to-slot mapping, as the server computes it: CRC16 (XMODEM: polynomial 0x1021, initial value 0)
 * of the key's UTF-8 bytes modulo 16384, where a key holding a non-empty hash tag ({@code {...}}, the first
 * {@code '{'} and the first {@code '}'} after it) is hashed by the tag alone. The one place the kit computes it.
 *
 * <pre>{@code
 * RedisSlots.slotOf("dq:{delay-intake:7}:due") == RedisSlots.slotOf("delay-intake:7")
 * }</pre>
 */
public final class RedisSlots {

    /** Number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private RedisSlots() {}

    /** The hash slot (0-16383) of {@code key}. */
    public static int slotOf(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) & (SLOTS - 1);
    }

    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xffff;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
