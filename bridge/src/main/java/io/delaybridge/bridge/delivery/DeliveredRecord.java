package io.delaybridge.bridge.delivery;

import io.delaybridge.schemas.IntakeOrigin;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The value of a shard's record in the delivered log: the messages that a committed transaction of the shard delivered
 * (or deadlettered) and that the shard still remembered ({@link LoggedRecords}), the intake floor (the highest offset
 * of the shard's intake partition known committed when the transaction committed, -1 if none), and where a reader
 * must start reading to find the rest of what the shard remembered ({@code readFrom}, -1 if the record lists it all),
 * and the chain it belongs to: a record that lists all its writer remembered begins a chain, and the records after it
 * that point back are of its chain; only the newest record of a chain says where its chain must be read from.
 *
 * <p>Version 3 layout: {@code byte 3, long floor, long readFrom, long chain, utf8 topic, int partition, int count, count x
 * message}; a message is {@code byte 1, long offset, long dueAt} when its id is the default id of an intake record of
 * that topic and partition ({@code <topic>-<partition>-<offset>}, its origin {@code <topic>/<partition>/<offset>}),
 * else {@code byte 0, utf8 id, utf8 origin, long dueAt}; strings as {@link DataOutputStream#writeUTF}. Versions 1 (no
 * floor) and 2 (no pointer, every message in full) are still read.
 */
public final class DeliveredRecord {

    private static final byte VERSION = 3;
    private static final byte WITHOUT_POINTER = 2;
    private static final byte WITHOUT_FLOOR = 1;
    private static final byte IN_FULL = 0;
    private static final byte DEFAULT_ID = 1;

    /**
     * What a record says: the messages it lists, the intake floor (-1: none known), where to read from (-1: here), and
     * its chain (0: none, a record of an earlier version).
     */
    public record Contents(List<Sends.Message> messages, long intakeFloor, long readFrom, long chain) {

        static final Contents EMPTY = new Contents(List.of(), -1);

        public Contents(List<Sends.Message> messages, long intakeFloor) {
            this(messages, intakeFloor, -1, 0);
        }
    }

    private DeliveredRecord() {}

    public static byte[] encode(Collection<Sends.Message> messages, long intakeFloor) {
        return encode(messages, intakeFloor, -1, 0);
    }

    /** The record of {@code chain} listing {@code messages}, pointing to the record at {@code readFrom} (-1: none). */
    public static byte[] encode(Collection<Sends.Message> messages, long intakeFloor, long readFrom, long chain) {
        IntakeOrigin common =
                messages.isEmpty() ? null : messages.iterator().next().place();
        String topic = common == null ? "" : common.topic();
        int partition = common == null ? -1 : common.partition();
        String originPrefix = topic + "/" + partition + "/";
        String idPrefix = topic + "-" + partition + "-";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48 + messages.size() * 20);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(intakeFloor);
            out.writeLong(readFrom);
            out.writeLong(chain);
            out.writeUTF(topic);
            out.writeInt(partition);
            out.writeInt(messages.size());
            for (Sends.Message message : messages) {
                long offset = common == null ? -1 : defaultOffset(message, originPrefix, idPrefix);
                if (offset >= 0) {
                    out.writeByte(DEFAULT_ID);
                    out.writeLong(offset);
                } else {
                    out.writeByte(IN_FULL);
                    out.writeUTF(message.id());
                    out.writeUTF(message.origin());
                }
                out.writeLong(message.dueAt());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The intake offset of {@code message} if its origin and id are the default ones of that offset, else -1. */
    private static long defaultOffset(Sends.Message message, String originPrefix, String idPrefix) {
        String origin = message.origin();
        String id = message.id();
        int digits = origin.length() - originPrefix.length();
        if (digits <= 0
                || digits > 18
                || id.length() != idPrefix.length() + digits
                || !origin.startsWith(originPrefix)
                || !id.startsWith(idPrefix)
                || !id.regionMatches(idPrefix.length(), origin, originPrefix.length(), digits)) {
            return -1;
        }
        long offset = 0;
        for (int i = originPrefix.length(); i < origin.length(); i++) {
            char c = origin.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            offset = offset * 10 + (c - '0');
        }
        // one spelling per offset: a leading zero would not read back the same
        return digits > 1 && origin.charAt(originPrefix.length()) == '0' ? -1 : offset;
    }

    /**
     * What a record says.
     *
     * @throws IllegalArgumentException the bytes are not a record of a version this bridge reads
     */
    public static Contents decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version < WITHOUT_FLOOR || version > VERSION) {
                throw new IllegalArgumentException("delivered record of version " + version + "; this bridge reads "
                        + "versions " + WITHOUT_FLOOR + " to " + VERSION);
            }
            long floor = version >= WITHOUT_POINTER ? in.readLong() : -1;
            if (version < VERSION) {
                return new Contents(readInFull(in), floor);
            }
            long readFrom = in.readLong();
            long chain = in.readLong();
            String topic = in.readUTF();
            int partition = in.readInt();
            int count = count(in);
            List<Sends.Message> messages = new ArrayList<>(Math.min(count, 100_000));
            for (int i = 0; i < count; i++) {
                byte kind = in.readByte();
                if (kind == DEFAULT_ID) {
                    long offset = in.readLong();
                    IntakeOrigin place = new IntakeOrigin(topic, partition, offset);
                    messages.add(new Sends.Message(
                            topic + "-" + partition + "-" + offset, place.toString(), in.readLong(), place));
                } else if (kind == IN_FULL) {
                    messages.add(new Sends.Message(in.readUTF(), in.readUTF(), in.readLong()));
                } else {
                    throw new IllegalArgumentException("delivered record with a message of kind " + kind);
                }
            }
            return new Contents(messages, floor, readFrom, chain);
        } catch (IOException e) {
            throw new IllegalArgumentException("delivered record cannot be read: " + e.getMessage(), e);
        }
    }

    private static List<Sends.Message> readInFull(DataInputStream in) throws IOException {
        int count = count(in);
        List<Sends.Message> messages = new ArrayList<>(Math.min(count, 100_000));
        for (int i = 0; i < count; i++) {
            messages.add(new Sends.Message(in.readUTF(), in.readUTF(), in.readLong()));
        }
        return messages;
    }

    private static int count(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IllegalArgumentException("delivered record with a negative count: " + count);
        }
        return count;
    }
}
