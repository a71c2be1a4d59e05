package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveredRecordTest {

    @Test
    void listsRoundTripInOrder() {
        List<Sends.Message> messages = List.of(
                new Sends.Message("delay-intake-3-17", "delay-intake-3@17", 1_700_000_000_000L),
                new Sends.Message("order-42 ✓", "delay-intake-0@5", -1));
        assertEquals(
                new DeliveredRecord.Contents(messages, 4_711),
                DeliveredRecord.decode(DeliveredRecord.encode(messages, 4_711)));
        assertEquals(
                new DeliveredRecord.Contents(List.of(), -1),
                DeliveredRecord.decode(DeliveredRecord.encode(List.of(), -1)));
    }

    @Test
    void aDefaultIdTakesItsOffsetAloneAndOtherIdsAreWrittenInFull() {
        List<Sends.Message> messages = List.of(
                new Sends.Message("delay-intake-3-17", "delay-intake/3/17", 1_700_000_000_000L),
                new Sends.Message("order-42", "delay-intake/3/18", 5),
                new Sends.Message("delay-intake-3-019", "delay-intake/3/019", 6),
                new Sends.Message("delay-intake-3-20", "delay-intake/4/20", 7),
                new Sends.Message("delay-intake-3-0", "delay-intake/3/0", 8));
        assertEquals(
                new DeliveredRecord.Contents(messages, 4_711, 1_234, -77),
                DeliveredRecord.decode(DeliveredRecord.encode(messages, 4_711, 1_234, -77)));
        List<Sends.Message> defaults = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            defaults.add(
                    new Sends.Message("delay-intake-7-" + (1_000_000 + i), "delay-intake/7/" + (1_000_000 + i), i));
        }
        int bytes = DeliveredRecord.encode(defaults, 1_000_499, -1, 1).length;
        assertTrue(bytes <= 500 * 17 + 64, "a default-id message costs 17 bytes: " + bytes);
    }

    @Test
    void readsTheFirstVersionWithoutAFloor() {
        // version 1, one message: what bridges before the intake floor wrote
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeInt(1);
            out.writeUTF("id-1");
            out.writeUTF("delay-intake/2/9");
            out.writeLong(77);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertEquals(
                new DeliveredRecord.Contents(List.of(new Sends.Message("id-1", "delay-intake/2/9", 77)), -1),
                DeliveredRecord.decode(bytes.toByteArray()));
    }

    @Test
    void staysSmallPerMessage() {
        List<Sends.Message> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            messages.add(new Sends.Message(
                    "delay-intake-7-" + (1_000_000 + i), "delay-intake-7@" + (1_000_000 + i), 1_700_000_000_000L + i));
        }
        int bytes = DeliveredRecord.encode(messages, 1_000_499).length;
        assertTrue(bytes < 500 * 60, "a default-id message costs under 60 bytes: " + bytes / 500);
    }

    @Test
    void refusesAnUnknownVersionOrTruncatedBytes() {
        byte[] bytes = DeliveredRecord.encode(List.of(new Sends.Message("a", "b", 1)), 5);
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        assertThrows(IllegalArgumentException.class, () -> DeliveredRecord.decode(truncated));
        bytes[0] = 9;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeliveredRecord.decode(bytes));
        assertTrue(e.getMessage().contains("version 9"), e.getMessage());
    }
}
