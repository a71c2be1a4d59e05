package io.delaybridge.schemas;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Binary form of an {@link Envelope}, as stored in Redis. Millions of messages may wait at once, so the format
 * spends bytes only where the data needs them: an envelope with a small key, a 200-byte value and no headers
 * costs 7 bytes beyond target, origin, key and value.
 *
 * <h2>Layout, version 1</h2>
 * <pre>
 * field       encoding                                   present
 * version     1 byte, 0x01                               always
 * flags       1 byte: 0x01 partition, 0x02 key,           always
 *                     0x04 value, 0x08 headers;
 *                     other bits must be 0
 * target      varint n, n bytes UTF-8                    always
 * origin      varint n, n bytes UTF-8                    always
 * partition   varint                                     flag 0x01
 * key         varint n, n bytes                          flag 0x02 (absent = null key)
 * value       varint n, n bytes                          flag 0x04 (absent = null value, a tombstone)
 * headers     varint count (at least 1), then each:      flag 0x08 (absent = no headers)
 *               key    varint n, n bytes UTF-8
 *               value  varint m: 0 = null, else m-1 bytes
 * </pre>
 * A varint is an unsigned LEB128 number: 7 bits per byte, least significant group first, high bit set on every
 * byte but the last; at most 5 bytes, at most {@link Integer#MAX_VALUE}. Empty and null are distinct for key,
 * value and header values. Nothing may follow the last field.
 *
 * <p>A new layout gets a new version byte; {@link #decode} keeps reading every version ever written, since
 * envelopes outlive deployments by as long as their delay.
 */
public final class EnvelopeCodec {

    /** Format version written by {@link #encode}. */
    public static final byte VERSION = 1;

    private static final int HAS_PARTITION = 0x01;
    private static final int HAS_KEY = 0x02;
    private static final int HAS_VALUE = 0x04;
    private static final int HAS_HEADERS = 0x08;
    private static final int KNOWN_FLAGS = HAS_PARTITION | HAS_KEY | HAS_VALUE | HAS_HEADERS;

    /** Leave room for array header words: the JVM refuses arrays of exactly Integer.MAX_VALUE. */
    private static final long MAX_ENCODED = Integer.MAX_VALUE - 8;

    private static final byte[] EMPTY = new byte[0];

    private EnvelopeCodec() {}

    /**
     * Encodes into a single array of exactly the right size.
     *
     * @param e the envelope
     * @return its bytes
     * @throws IllegalArgumentException if the envelope would not fit in a Java array (2 GiB)
     */
    public static byte[] encode(Envelope e) {
        List<Header> headers = e.headers();
        int targetLength = Utf8.encodedLength(e.target());
        int originLength = Utf8.encodedLength(e.origin());
        int[] headerKeyLengths = new int[headers.size()];

        long size = 2L + varintSize(targetLength) + targetLength + varintSize(originLength) + originLength;
        int flags = 0;
        if (e.partition() != null) {
            flags |= HAS_PARTITION;
            size += varintSize(e.partition());
        }
        if (e.key() != null) {
            flags |= HAS_KEY;
            size += varintSize(e.key().length) + e.key().length;
        }
        if (e.value() != null) {
            flags |= HAS_VALUE;
            size += varintSize(e.value().length) + e.value().length;
        }
        if (!headers.isEmpty()) {
            flags |= HAS_HEADERS;
            size += varintSize(headers.size());
            for (int i = 0; i < headerKeyLengths.length; i++) {
                Header h = headers.get(i);
                int n = Utf8.encodedLength(h.key());
                headerKeyLengths[i] = n;
                byte[] v = h.value();
                size += varintSize(n) + n + (v == null ? 1 : varintSize(v.length + 1L) + v.length);
            }
        }
        if (size > MAX_ENCODED) {
            throw new IllegalArgumentException(
                    "envelope for " + e.origin() + " would take " + size + " bytes, more than a Java array holds");
        }

        byte[] out = new byte[(int) size];
        out[0] = VERSION;
        out[1] = (byte) flags;
        int pos = writeVarint(out, 2, targetLength);
        pos = Utf8.encode(e.target(), out, pos);
        pos = writeVarint(out, pos, originLength);
        pos = Utf8.encode(e.origin(), out, pos);
        if (e.partition() != null) {
            pos = writeVarint(out, pos, e.partition());
        }
        if (e.key() != null) {
            pos = writeBytes(out, pos, e.key());
        }
        if (e.value() != null) {
            pos = writeBytes(out, pos, e.value());
        }
        if (!headers.isEmpty()) {
            pos = writeVarint(out, pos, headers.size());
            for (int i = 0; i < headerKeyLengths.length; i++) {
                Header h = headers.get(i);
                pos = writeVarint(out, pos, headerKeyLengths[i]);
                pos = Utf8.encode(h.key(), out, pos);
                byte[] v = h.value();
                if (v == null) {
                    out[pos++] = 0;
                } else {
                    pos = writeVarint(out, pos, v.length + 1);
                    System.arraycopy(v, 0, out, pos, v.length);
                    pos += v.length;
                }
            }
        }
        assert pos == out.length : "size computed " + out.length + ", written " + pos;
        return out;
    }

    /**
     * Decodes bytes written by {@link #encode} in any version this class knows.
     *
     * @param bytes stored bytes
     * @return the envelope
     * @throws CorruptEnvelopeException if the bytes are not a well-formed envelope
     */
    public static Envelope decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new CorruptEnvelopeException("corrupt envelope: " + (bytes == null ? "null" : "empty"));
        }
        requireVersion(bytes, 0);
        return new Reader(bytes).readVersion1(0, null);
    }

    /**
     * Decodes the envelope that fills {@code bytes} from {@code from} to its end, as {@link #decode(byte[])} does, with
     * no copy of what precedes it. An envelope stored with an empty origin gets {@code emptyOrigin}'s (asked only
     * then; null leaves it empty): the store keeps a default-id message's envelope without its origin, since the id
     * names it, and puts it back here, in the one decode of the message.
     *
     * @param bytes       holds an envelope from {@code from} to its end
     * @param from        where the envelope starts
     * @param emptyOrigin the origin of an envelope stored without one, or null
     * @return the envelope
     * @throws CorruptEnvelopeException if no well-formed envelope starts at {@code from}
     */
    public static Envelope decode(byte[] bytes, int from, Supplier<String> emptyOrigin) {
        if (bytes == null || from < 0 || from >= bytes.length) {
            throw new CorruptEnvelopeException("corrupt envelope: none at byte " + from + " of "
                    + (bytes == null ? "null" : bytes.length + " bytes"));
        }
        requireVersion(bytes, from);
        return new Reader(bytes).readVersion1(from, emptyOrigin);
    }

    /** The target of the envelope at {@code from}, the rest not read (the store's lanes); {@code ""} if none is there. */
    public static String target(byte[] bytes, int from) {
        try {
            Reader reader = new Reader(bytes);
            reader.pos = from + 2;
            return bytes[from] == VERSION ? reader.readString("target") : "";
        } catch (CorruptEnvelopeException | IndexOutOfBoundsException | NullPointerException e) {
            return "";
        }
    }

    /**
     * The envelope that starts at {@code from} in {@code bytes}, re-encoded with {@code origin} as its origin, if its
     * origin is exactly {@code expected}; every other field is copied as it is, without decoding it. One read as far
     * as the origin, then the copy; {@code origin} is asked only then. Empty if the origin is another, or if no
     * envelope this class reads starts at {@code from}.
     *
     * <p>Why: the store keeps a default-id message's envelope with an empty origin, because its id already names the
     * intake record (topic/partition/offset): of a 200-byte record's 263 stored bytes the origin took 27, and the
     * rest then fits the allocator's 256-byte class instead of its 320-byte one. The store puts the origin back when
     * it reads the message. {@code from} skips what the store keeps in front of the envelope, so the copy is the only
     * one.
     *
     * @param bytes    holds an envelope from {@code from} to its end
     * @param from     where the envelope starts
     * @param expected the origin the envelope must have
     * @param origin   the origin to write instead, may be empty
     * @return a new array holding just the re-encoded envelope, or empty
     */
    public static Optional<byte[]> replaceOrigin(byte[] bytes, int from, String expected, Supplier<String> origin) {
        return replaceOrigin(EMPTY, bytes, from, expected, origin);
    }

    /**
     * As {@link #replaceOrigin(byte[], int, String, Supplier)}, with {@code prefix} written in front of the
     * re-encoded envelope in the same new array: the store's header and the envelope in one copy.
     *
     * @param prefix bytes the result starts with
     * @return a new array holding {@code prefix} and the re-encoded envelope, or empty
     */
    public static Optional<byte[]> replaceOrigin(
            byte[] prefix, byte[] bytes, int from, String expected, Supplier<String> origin) {
        Reader reader;
        String found;
        try {
            reader = originField(bytes, from);
            int end = reader.pos;
            reader.pos = reader.mark;
            found = reader.readString("origin");
            reader.pos = end;
        } catch (CorruptEnvelopeException e) {
            return Optional.empty();
        }
        if (!found.equals(expected)) {
            return Optional.empty();
        }
        return Optional.of(splice(prefix, bytes, from, reader.mark, reader.pos, origin.get()));
    }

    /** prefix + bytes[from..originStart) + origin as a field + bytes[originEnd..]. */
    private static byte[] splice(byte[] prefix, byte[] bytes, int from, int originStart, int originEnd, String origin) {
        int originLength = Utf8.encodedLength(origin);
        int head = prefix.length + originStart - from;
        byte[] out = new byte[head + varintSize(originLength) + originLength + bytes.length - originEnd];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(bytes, from, out, prefix.length, originStart - from);
        int pos = writeVarint(out, head, originLength);
        pos = Utf8.encode(origin, out, pos);
        System.arraycopy(bytes, originEnd, out, pos, bytes.length - originEnd);
        return out;
    }

    private static void requireVersion(byte[] bytes, int at) {
        if (bytes[at] != VERSION) {
            throw new CorruptEnvelopeException("corrupt envelope: unknown format version " + (bytes[at] & 0xFF)
                    + "; this build reads version " + VERSION + " (written by a newer bridge?)");
        }
    }

    /** A reader whose {@code mark} is where the origin field starts and whose position is where it ends. */
    private static Reader originField(byte[] bytes, int from) {
        if (bytes == null || from < 0 || from >= bytes.length) {
            throw new CorruptEnvelopeException("corrupt envelope: none at byte " + from + " of "
                    + (bytes == null ? "null" : bytes.length + " bytes"));
        }
        requireVersion(bytes, from);
        Reader reader = new Reader(bytes);
        reader.pos = from + 1;
        reader.require(1, "flags");
        reader.pos = from + 2;
        reader.skipString("target");
        reader.mark = reader.pos;
        reader.skipString("origin");
        return reader;
    }

    static int varintSize(long value) {
        int n = 1;
        while (value >= 0x80) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    private static int writeVarint(byte[] out, int pos, int value) {
        while ((value & ~0x7F) != 0) {
            out[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[pos++] = (byte) value;
        return pos;
    }

    private static int writeBytes(byte[] out, int pos, byte[] bytes) {
        pos = writeVarint(out, pos, bytes.length);
        System.arraycopy(bytes, 0, out, pos, bytes.length);
        return pos + bytes.length;
    }

    /** Cursor over the input; every read checks bounds first so corrupt lengths never allocate. */
    private static final class Reader {
        private final byte[] in;
        private int pos;
        private int mark;
        private int start;

        Reader(byte[] in) {
            this.in = in;
        }

        Envelope readVersion1(int from, Supplier<String> emptyOrigin) {
            if (in.length - from < 2) {
                throw corrupt("truncated before the flags byte");
            }
            int flags = in[from + 1] & 0xFF;
            if ((flags & ~KNOWN_FLAGS) != 0) {
                throw corrupt(String.format("unknown flags 0x%02X", flags));
            }
            start = from;
            pos = from + 2;
            String target = readString("target");
            String origin = readString("origin");
            if (origin.isEmpty() && emptyOrigin != null) {
                origin = emptyOrigin.get();
            }
            Integer partition = (flags & HAS_PARTITION) != 0 ? readVarint("partition") : null;
            byte[] key = (flags & HAS_KEY) != 0 ? readBytes(readVarint("key length"), "key") : null;
            byte[] value = (flags & HAS_VALUE) != 0 ? readBytes(readVarint("value length"), "value") : null;
            List<Header> headers = List.of();
            if ((flags & HAS_HEADERS) != 0) {
                int count = readVarint("header count");
                if (count == 0) {
                    throw corrupt("header flag set but header count is 0");
                }
                // every header takes at least 2 bytes: reject absurd counts before allocating for them
                if (count > (in.length - pos) / 2) {
                    throw corrupt("header count " + count + " exceeds the remaining " + (in.length - pos) + " bytes");
                }
                Header[] hs = new Header[count];
                for (int i = 0; i < count; i++) {
                    String name = readString("header " + i + " key");
                    int m = readVarint("header " + i + " value length");
                    hs[i] = new RecordHeader(name, m == 0 ? null : readBytes(m - 1, "header " + i + " value"));
                }
                headers = List.of(hs);
            }
            if (pos != in.length) {
                throw corrupt((in.length - pos) + " unexpected bytes after the last field");
            }
            return new Envelope(target, partition, origin, key, value, headers);
        }

        private int readVarint(String what) {
            int result = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                if (pos >= in.length) {
                    throw corrupt("truncated in " + what);
                }
                int b = in[pos++];
                result |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (result < 0 || (shift == 28 && (b & 0x70) != 0)) {
                        throw corrupt(what + " out of range");
                    }
                    return result;
                }
            }
            throw corrupt(what + " is a varint longer than 5 bytes");
        }

        private void require(int n, String what) {
            if (n > in.length - pos) {
                throw corrupt(what + " needs " + n + " bytes but only " + (in.length - pos) + " remain");
            }
        }

        private byte[] readBytes(int n, String what) {
            require(n, what);
            byte[] b = Arrays.copyOfRange(in, pos, pos + n);
            pos += n;
            return b;
        }

        private void skipString(String what) {
            int n = readVarint(what + " length");
            require(n, what);
            pos += n;
        }

        private String readString(String what) {
            int n = readVarint(what + " length");
            require(n, what);
            try {
                String s = Utf8.decode(in, pos, n);
                pos += n;
                return s;
            } catch (Utf8.MalformedUtf8 e) {
                throw corrupt(what + " is not UTF-8 (" + e.getMessage() + ")");
            }
        }

        private CorruptEnvelopeException corrupt(String what) {
            return new CorruptEnvelopeException(
                    "corrupt envelope (" + (in.length - start) + " bytes, at byte " + (pos - start) + "): " + what);
        }
    }
}
