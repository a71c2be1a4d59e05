package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.schemas.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The value stored for a message in a shard's {@code msg} hash: an origin header, then the envelope.
 *
 * <pre>
 * header   = length origin-token
 * length   = 1 byte 0..127, or 2 bytes 0x80|(n&gt;&gt;8), n&amp;0xFF for n up to 32767 (big-endian, top bit set)
 * token    = the origin (topic/partition/offset of the intake record), then "@" and the record's timestamp (epoch
 *            ms) if it is known; or empty when the id is a default id and the origin is the record it names (the id
 *            already says it)
 * </pre>
 *
 * <p>Why in the value and not in a separate hash: {@code schedule.lua} must tell a re-read of the same intake record
 * (DUPLICATE: change nothing) from a new record with the same id (REPLACE). Keeping the origin inside the value costs
 * one byte for default ids (the common case) and the origin's length otherwise; a separate {@code origin} hash would
 * cost a second hash entry per message (~70 bytes of Redis overhead before the origin itself). Comparing needs only a
 * prefix compare in Lua, and {@code claim.lua} returns the value whole: this class strips the header in Java.
 *
 * <p>The timestamp orders two records of one id (see {@link #token(String, long)}); a default id's own record needs
 * none, since no other record has its origin, and only a record with an explicit {@code delay-id} pays its 14 bytes.
 *
 * <p>For the same reason a default id's own record is stored without the origin inside its envelope: the id names it
 * ({@code topic/partition/offset}), and the origin was ~27 of a 200-byte record's 263 stored bytes, enough to move
 * the value from the allocator's 320-byte class to its 256-byte one (Redis memory 486 -> 422 B a pending record in
 * the benchmark). {@link #encode(byte[], byte[], String)} leaves it out only of an envelope it reads whose origin is
 * exactly the id's, so bytes that are no envelope are stored as given; {@link #envelope(byte[], Supplier)} puts it
 * back into an envelope stored that way, and returns any other as stored (values written before 2026-11-23 kept it).
 */
public final class StoredValue {

    static final int MAX_TOKEN_LENGTH = 0x7FFF;

    private StoredValue() {}

    /**
     * The origin token of a record stored under an id that is not its own default id: its origin, then {@code @} and
     * its timestamp if known. {@code schedule.lua} reads both off the stored version of the id to decide whether a
     * new record of the id is older than it (then it is dropped, not stored over the newer one): by timestamp, and
     * two records of one intake partition with the same timestamp by offset. Without a timestamp (unknown, or
     * negative: Kafka's -1 of the oldest message format) the origin alone.
     */
    public static String token(String origin, long timestamp) {
        return timestamp < 0 ? origin : origin + '@' + timestamp;
    }

    /** The header for this origin token: what {@code schedule.lua} compares to the start of a stored value. */
    public static byte[] header(String originToken) {
        byte[] token = originToken.getBytes(StandardCharsets.UTF_8);
        int n = token.length;
        if (n > MAX_TOKEN_LENGTH) {
            throw new IllegalArgumentException("origin is " + n + " bytes long, at most " + MAX_TOKEN_LENGTH + " fit: "
                    + originToken.substring(0, 64) + "...");
        }
        int lengthBytes = n < 0x80 ? 1 : 2;
        byte[] header = new byte[lengthBytes + n];
        if (lengthBytes == 1) {
            header[0] = (byte) n;
        } else {
            header[0] = (byte) (0x80 | (n >>> 8));
            header[1] = (byte) n;
        }
        System.arraycopy(token, 0, header, lengthBytes, n);
        return header;
    }

    /** Header followed by envelope. */
    public static byte[] encode(byte[] header, byte[] envelope) {
        byte[] value = Arrays.copyOf(header, header.length + envelope.length);
        System.arraycopy(envelope, 0, value, header.length, envelope.length);
        return value;
    }

    /**
     * Header followed by envelope, the envelope without its origin if that is {@code naturalOrigin}: the record the
     * message's default id names (then the header's token is empty). {@code naturalOrigin} is null for any other
     * message.
     */
    public static byte[] encode(byte[] header, byte[] envelope, String naturalOrigin) {
        if (naturalOrigin == null) {
            return encode(header, envelope);
        }
        return EnvelopeCodec.replaceOrigin(header, envelope, 0, naturalOrigin, () -> "")
                .orElseGet(() -> encode(header, envelope));
    }

    /**
     * The message a claim took, its envelope left inside the stored value: decoded once, at its release, with the
     * origin of a default id's own record ({@code naturalOrigin}, asked only for such a value) put back in that decode.
     */
    public static ClaimedMessage claimed(
            MessageRef ref, long dueAt, int attempt, byte[] value, Supplier<String> naturalOrigin) {
        int headerLength = headerLength(value);
        return new ClaimedMessage(ref, dueAt, attempt, value, headerLength, headerLength == 1 ? naturalOrigin : null);
    }

    /** The envelope inside a stored value, as stored. */
    public static byte[] envelope(byte[] value) {
        return Arrays.copyOfRange(value, headerLength(value), value.length);
    }

    /**
     * The envelope inside a stored value, with the origin of a default id's own record put back: {@code naturalOrigin}
     * supplies it (asked only for such a value).
     */
    public static byte[] envelope(byte[] value, Supplier<String> naturalOrigin) {
        int headerLength = headerLength(value);
        if (headerLength == 1) {
            return EnvelopeCodec.replaceOrigin(value, 1, "", naturalOrigin)
                    .orElseGet(() -> Arrays.copyOfRange(value, 1, value.length));
        }
        return Arrays.copyOfRange(value, headerLength, value.length);
    }

    /** The origin token inside a stored value ({@code ""} for a default id's own record), as {@link #token}. */
    public static String originToken(byte[] value) {
        int headerLength = headerLength(value);
        int lengthBytes = (value[0] & 0x80) == 0 ? 1 : 2;
        return new String(value, lengthBytes, headerLength - lengthBytes, StandardCharsets.UTF_8);
    }

    /**
     * The target topic of the envelope inside a stored value, read without decoding the rest: the lane the message
     * waits in (lanes.lua reads it the same way). {@code ""} for a value that holds no envelope of version 1.
     */
    public static String target(byte[] value) {
        if (value.length == 0 || ((value[0] & 0x80) != 0 && value.length < 2)) {
            return "";
        }
        int first = value[0] & 0xFF;
        return EnvelopeCodec.target(value, first < 0x80 ? 1 + first : 2 + (((first & 0x7F) << 8) | (value[1] & 0xFF)));
    }

    private static int headerLength(byte[] value) {
        if (value.length == 0) {
            throw new IllegalArgumentException("stored value is empty: it has no origin header");
        }
        int first = value[0] & 0xFF;
        int headerLength;
        if (first < 0x80) {
            headerLength = 1 + first;
        } else {
            if (value.length < 2) {
                throw new IllegalArgumentException("stored value is cut inside its origin header");
            }
            headerLength = 2 + (((first & 0x7F) << 8) | (value[1] & 0xFF));
        }
        if (headerLength > value.length) {
            throw new IllegalArgumentException("stored value of " + value.length
                    + " bytes is shorter than its origin header of " + headerLength + " bytes");
        }
        return headerLength;
    }
}
