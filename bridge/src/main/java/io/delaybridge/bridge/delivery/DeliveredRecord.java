package io.delaybridge.bridge.delivery;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The value of a shard's record in the delivered log: the messages that committed transactions of the shard delivered
 * (or deadlettered) and whose acks Redis had not yet confirmed when the transaction committed, and the intake floor:
 * the highest offset of the shard's intake partition known committed when the transaction committed (-1 if none).
 * Version 2 layout: {@code byte 2, long floor, int count, count x (utf8 id, utf8 origin, long dueAt)}, strings as
 * {@link DataOutputStream#writeUTF}; version 1 (no floor) is still read. Small by design: an entry leaves the set as
 * soon as Redis confirms its ack, so a record holds about one or two transactions' messages, not a history.
 */
public final class DeliveredRecord {

    private static final byte VERSION = 2;
    private static final byte WITHOUT_FLOOR = 1;

    /** What a record says: the messages it lists and the intake floor (-1: none known). */
    public record Contents(List<Sends.Message> messages, long intakeFloor) {

        static final Contents EMPTY = new Contents(List.of(), -1);
    }

    private DeliveredRecord() {}

    public static byte[] encode(Collection<Sends.Message> messages, long intakeFloor) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(24 + messages.size() * 48);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(intakeFloor);
            out.writeInt(messages.size());
            for (Sends.Message message : messages) {
                out.writeUTF(message.id());
                out.writeUTF(message.origin());
                out.writeLong(message.dueAt());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * What a record says.
     *
     * @throws IllegalArgumentException the bytes are not a record of a version this bridge reads
     */
    public static Contents decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != VERSION && version != WITHOUT_FLOOR) {
                throw new IllegalArgumentException("delivered record of version " + version + "; this bridge reads "
                        + "versions " + WITHOUT_FLOOR + " and " + VERSION);
            }
            long floor = version == VERSION ? in.readLong() : -1;
            int count = in.readInt();
            if (count < 0) {
                throw new IllegalArgumentException("delivered record with a negative count: " + count);
            }
            List<Sends.Message> messages = new ArrayList<>(Math.min(count, 100_000));
            for (int i = 0; i < count; i++) {
                messages.add(new Sends.Message(in.readUTF(), in.readUTF(), in.readLong()));
            }
            return new Contents(messages, floor);
        } catch (IOException e) {
            throw new IllegalArgumentException("delivered record cannot be read: " + e.getMessage(), e);
        }
    }
}
