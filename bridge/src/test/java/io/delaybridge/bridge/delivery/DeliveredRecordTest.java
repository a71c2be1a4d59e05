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
        assertEquals(messages, DeliveredRecord.decode(DeliveredRecord.encode(messages)));
        assertEquals(List.of(), DeliveredRecord.decode(DeliveredRecord.encode(List.of())));
    }

    @Test
    void staysSmallPerMessage() {
        List<Sends.Message> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            messages.add(new Sends.Message(
                    "delay-intake-7-" + (1_000_000 + i), "delay-intake-7@" + (1_000_000 + i), 1_700_000_000_000L + i));
        }
        int bytes = DeliveredRecord.encode(messages).length;
        assertTrue(bytes < 500 * 60, "a default-id message costs under 60 bytes: " + bytes / 500);
    }

    @Test
    void refusesAnUnknownVersionOrTruncatedBytes() {
        byte[] bytes = DeliveredRecord.encode(List.of(new Sends.Message("a", "b", 1)));
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        assertThrows(IllegalArgumentException.class, () -> DeliveredRecord.decode(truncated));
        bytes[0] = 9;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeliveredRecord.decode(bytes));
        assertTrue(e.getMessage().contains("version 9"), e.getMessage());
    }
}
