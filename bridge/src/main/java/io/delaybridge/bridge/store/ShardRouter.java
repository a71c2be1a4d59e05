package io.delaybridge.bridge.store;

import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.IntakeOrigin;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * Decides which shard holds a message id, and the compact member the id is stored under in that shard.
 *
 * <p>Two kinds of ids:
 *
 * <ul>
 *   <li><b>Default ids</b> {@code <intakeTopic>-<partition>-<offset>}: the id the intake gives a record without a
 *       {@code delay-id}. Partition and offset are non-negative decimals without leading zeros (the form {@link
 *       Long#toString} writes), the partition below the shard count and the offset below 2<sup>63</sup>. Such an id
 *       lives in shard {@code partition}, so a shard holds what came in on its intake partition and per-key order is
 *       kept. Its member is the offset as 8 bytes big-endian: compact, and members of equal due time sort by intake
 *       offset.
 *   <li><b>Every other id</b> (an explicit {@code delay-id}, or a default id that does not fit the rules above, e.g.
 *       {@code delay-intake-01-5} or an id naming another topic): shard = CRC32 of the id's UTF-8 bytes, unsigned,
 *       modulo the shard count. CRC32 ({@link CRC32}, the IEEE polynomial also used by zlib and by TimeOutCenter's slot
 *       routing) is stable across JVMs, releases and languages, so a cancel or a replacement finds the message from any
 *       intake partition and any bridge version. Its member is {@code 0xFF} followed by the UTF-8 bytes.
 * </ul>
 *
 * <p>The two member forms never collide: {@code 0xFF} never occurs in UTF-8, and a big-endian offset below
 * 2<sup>63</sup> starts with a byte of at most {@code 0x7F}. {@link #idOf} turns a member back into its id.
 *
 * <p>The router is immutable and thread-safe. Changing the shard count moves explicit ids to other shards, which is why
 * the store fixes it when it is first initialised.
 */
public final class ShardRouter {

    private static final byte EXPLICIT_ID_MARK = (byte) 0xFF;
    private static final int OFFSET_MEMBER_LENGTH = Long.BYTES;

    private final String intakeTopic;
    private final String defaultIdPrefix;
    private final int shardCount;

    public ShardRouter(String intakeTopic, int shardCount) {
        this.intakeTopic = Objects.requireNonNull(intakeTopic, "intakeTopic");
        if (intakeTopic.isEmpty()) {
            throw new IllegalArgumentException("intakeTopic must not be empty");
        }
        if (shardCount < 1) {
            throw new IllegalArgumentException("shardCount must be at least 1, was " + shardCount);
        }
        this.defaultIdPrefix = intakeTopic + "-";
        this.shardCount = shardCount;
    }

    public String intakeTopic() {
        return intakeTopic;
    }

    public int shardCount() {
        return shardCount;
    }

    /** The shard that holds the message with this id. */
    public int shardOf(String id) {
        return place(id).shard();
    }

    /** The member the message with this id is stored under in its shard. */
    public byte[] member(String id) {
        return place(id).member();
    }

    /**
     * Where the message with this id lives, worked out once: the intake's hot path needs shard, member and the
     * natural-origin test for every record, and each of them parses the id.
     */
    public Placement place(String id) {
        long[] parsed = parseDefaultId(id);
        if (parsed != null) {
            return new Placement(
                    (int) parsed[0],
                    ByteBuffer.allocate(OFFSET_MEMBER_LENGTH).putLong(parsed[1]).array(),
                    parsed[1]);
        }
        byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
        byte[] member = new byte[utf8.length + 1];
        member[0] = EXPLICIT_ID_MARK;
        System.arraycopy(utf8, 0, member, 1, utf8.length);
        return new Placement(hashShard(utf8), member, -1);
    }

    /**
     * The shard and member of an id.
     *
     * @param offset the intake offset a default id names, or -1 for any other id
     */
    public record Placement(int shard, byte[] member, long offset) {}

    /** The reference to the message with this id: its id and member. */
    public MessageRef ref(String id) {
        return new MessageRef(id, member(id));
    }

    /** The id of the message stored under {@code member} in {@code shard}: the inverse of {@link #member}. */
    public String idOf(int shard, byte[] member) {
        if (member.length > 0 && member[0] == EXPLICIT_ID_MARK) {
            return new String(member, 1, member.length - 1, StandardCharsets.UTF_8);
        }
        return defaultIdPrefix + shard + "-" + offsetOf(member);
    }

    /**
     * The intake record ({@code topic/partition/offset}) that the default id stored under {@code member} in
     * {@code shard} names: its natural origin, which the store leaves out of the stored envelope.
     *
     * @throws IllegalArgumentException for an explicit id's member: it names no record
     */
    public String naturalOrigin(int shard, byte[] member) {
        return Envelope.origin(intakeTopic, shard, offsetOf(member));
    }

    /** The intake offset a default id's member holds. */
    private static long offsetOf(byte[] member) {
        if (member.length != OFFSET_MEMBER_LENGTH || member[0] == EXPLICIT_ID_MARK) {
            throw new IllegalArgumentException("Not a default id's member of this store: " + member.length + " bytes "
                    + Arrays.toString(member) + " (expected 8 bytes of offset; 0xFF and an id is an explicit id)");
        }
        return ByteBuffer.wrap(member).getLong();
    }

    /**
     * Whether {@code origin} is the intake record that a default id names: then the id
     * says everything the origin says, and the store need not keep the origin beside the message.
     */
    public boolean isNaturalOrigin(String id, IntakeOrigin origin) {
        return isNaturalOrigin(place(id), origin);
    }

    /** {@link #isNaturalOrigin(String, IntakeOrigin)} for an id already placed. */
    public boolean isNaturalOrigin(Placement placement, IntakeOrigin origin) {
        return placement.offset() >= 0
                && origin.offset() == placement.offset()
                && origin.of(intakeTopic, placement.shard());
    }

    private int hashShard(byte[] utf8) {
        CRC32 crc = new CRC32();
        crc.update(utf8);
        return (int) (crc.getValue() % shardCount);
    }

    /** {partition, offset} if {@code id} is a default id of this intake topic and shard count, else null. */
    private long[] parseDefaultId(String id) {
        if (!id.startsWith(defaultIdPrefix)) {
            return null;
        }
        int partitionStart = defaultIdPrefix.length();
        int dash = id.indexOf('-', partitionStart);
        if (dash < 0) {
            return null;
        }
        long partition = parseCanonicalDecimal(id, partitionStart, dash);
        long offset = parseCanonicalDecimal(id, dash + 1, id.length());
        if (partition < 0 || partition >= shardCount || offset < 0) {
            return null;
        }
        return new long[] {partition, offset};
    }

    /** The value of {@code s[from, to)} if it is a non-negative long written without sign or leading zeros, else -1. */
    private static long parseCanonicalDecimal(String s, int from, int to) {
        int length = to - from;
        if (length < 1 || length > 19 || (length > 1 && s.charAt(from) == '0')) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1; // overflowed: 19 digits above Long.MAX_VALUE
            }
        }
        return value;
    }
}
