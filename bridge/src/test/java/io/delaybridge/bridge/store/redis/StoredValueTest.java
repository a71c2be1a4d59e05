package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StoredValueTest {

    private static final byte[] ENVELOPE = {0, (byte) 0xFF, 1, 2, 3, (byte) 0x80};

    @Test
    void defaultIdsCostOneByte() {
        assertArrayEquals(new byte[] {0}, StoredValue.header(""));
        byte[] value = StoredValue.encode(StoredValue.header(""), ENVELOPE);
        assertEquals(ENVELOPE.length + 1, value.length);
        assertArrayEquals(ENVELOPE, StoredValue.envelope(value));
        assertEquals("", StoredValue.originToken(value));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 20, 127, 128, 129, 255, 256, 1000, 32767})
    void originsOfEveryLengthRoundTrip(int length) {
        String origin = "o".repeat(length);
        byte[] header = StoredValue.header(origin);
        assertEquals(length + (length < 128 ? 1 : 2), header.length);
        byte[] value = StoredValue.encode(header, ENVELOPE);
        assertEquals(origin, StoredValue.originToken(value));
        assertArrayEquals(ENVELOPE, StoredValue.envelope(value));
        assertArrayEquals(header, Arrays.copyOf(value, header.length), "the value starts with its header");
    }

    @Test
    void aTokenCarriesTheRecordTimestampWhenItIsKnown() {
        assertEquals("delay-intake/3/17@1700000000123", StoredValue.token("delay-intake/3/17", 1_700_000_000_123L));
        assertEquals("delay-intake/3/17", StoredValue.token("delay-intake/3/17", WriteOp.NO_TIMESTAMP));
        byte[] value = StoredValue.encode(StoredValue.header(StoredValue.token("t/0/1", 5)), ENVELOPE);
        assertEquals("t/0/1@5", StoredValue.originToken(value));
        assertArrayEquals(ENVELOPE, StoredValue.envelope(value));
    }

    @Test
    void unicodeOriginsAndEmptyEnvelopes() {
        byte[] value = StoredValue.encode(StoredValue.header("tëst/1/2"), new byte[0]);
        assertEquals("tëst/1/2", StoredValue.originToken(value));
        assertEquals(0, StoredValue.envelope(value).length);
    }

    @Test
    void headersOfDifferentOriginsAreNeverPrefixesOfEachOther() {
        // schedule.lua tells a duplicate by "the stored value starts with the new header"
        String[] origins = {"", "a", "delay-intake/1/2", "delay-intake/1/23", "o".repeat(128), "o".repeat(129)};
        for (String a : origins) {
            for (String b : origins) {
                if (a.equals(b)) {
                    continue;
                }
                byte[] stored = StoredValue.encode(
                        StoredValue.header(a), "delay-intake/1/234".getBytes(StandardCharsets.UTF_8));
                byte[] header = StoredValue.header(b);
                boolean prefix =
                        stored.length >= header.length && Arrays.equals(Arrays.copyOf(stored, header.length), header);
                assertFalse(prefix, "'" + b + "' would match a value stored for '" + a + "'");
            }
        }
    }

    @Test
    void rejectsOversizedOriginsAndBrokenValues() {
        assertThrows(IllegalArgumentException.class, () -> StoredValue.header("o".repeat(32768)));
        assertThrows(IllegalArgumentException.class, () -> StoredValue.envelope(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> StoredValue.envelope(new byte[] {5, 1}));
        assertThrows(IllegalArgumentException.class, () -> StoredValue.envelope(new byte[] {(byte) 0x80}));
    }

    @Test
    void aDefaultIdsOwnRecordIsStoredWithoutItsOriginAndReadBackWhole() {
        String origin = "delay-intake/4/1042";
        byte[] envelope =
                EnvelopeCodec.encode(new Envelope("orders.timeout", null, origin, null, new byte[200], List.of()));

        byte[] value = StoredValue.encode(StoredValue.header(""), envelope, origin);

        assertEquals(1 + envelope.length - origin.length(), value.length);
        assertEquals("", EnvelopeCodec.decode(StoredValue.envelope(value)).origin());
        assertArrayEquals(envelope, StoredValue.envelope(value, () -> origin));
    }

    @Test
    void anyOtherEnvelopeIsStoredAndReadAsGiven() {
        byte[] envelope = EnvelopeCodec.encode(new Envelope("t", null, "delay-intake/4/1042", null, null, List.of()));
        Supplier<String> notAsked = () -> {
            throw new AssertionError("the natural origin was asked for a value that keeps its own");
        };

        // the origin is not the one the id names; not an envelope; no natural origin (an explicit id)
        byte[] otherOrigin = StoredValue.encode(StoredValue.header(""), envelope, "delay-intake/4/1043");
        byte[] opaque = StoredValue.encode(StoredValue.header(""), ENVELOPE, "delay-intake/4/1042");
        byte[] explicit = StoredValue.encode(StoredValue.header("delay-intake/4/1042"), envelope, null);

        assertArrayEquals(envelope, StoredValue.envelope(otherOrigin, notAsked));
        assertArrayEquals(ENVELOPE, StoredValue.envelope(opaque, notAsked));
        assertArrayEquals(envelope, StoredValue.envelope(explicit, notAsked));
    }

    @Test
    void theTargetIsReadOffTheEnvelopeWhateverTheHeader() {
        String target = "orders.timeout-" + "t".repeat(200); // a length of two varint bytes
        byte[] envelope =
                EnvelopeCodec.encode(new Envelope(target, 3, "delay-intake/1/2", null, new byte[] {1}, List.of()));
        assertEquals(target, StoredValue.target(StoredValue.encode(StoredValue.header(""), envelope)));
        String longToken = "delay-intake/1/2@" + "9".repeat(200); // a header of two length bytes
        assertEquals(target, StoredValue.target(StoredValue.encode(StoredValue.header(longToken), envelope)));
        assertEquals("", StoredValue.target(StoredValue.encode(StoredValue.header("x"), "plain".getBytes())));
        assertEquals("", StoredValue.target(new byte[] {0}), "a header and nothing after it");
        assertEquals("", StoredValue.target(new byte[0]));
    }
}
