package io.delaybridge.schemas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

class EnvelopeCodecTest {

    static final String TARGET = "orders.timeout";
    static final String ORIGIN = "delay-intake/3/1042";

    static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    static Envelope roundTrip(Envelope e) {
        Envelope back = EnvelopeCodec.decode(EnvelopeCodec.encode(e));
        assertEquals(e, back);
        return back;
    }

    static Envelope full() {
        return new Envelope(
                TARGET,
                5,
                ORIGIN,
                bytes("order-42"),
                bytes("{\"order\":42}"),
                List.of(
                        new RecordHeader("traceparent", bytes("00-abc-def-01")),
                        new RecordHeader("empty", new byte[0]),
                        new RecordHeader("none", null),
                        new RecordHeader("traceparent", bytes("again"))));
    }

    @Test
    void fullEnvelopeRoundTrips() {
        Envelope back = roundTrip(full());
        assertEquals(TARGET, back.target());
        assertEquals(5, back.partition());
        assertEquals(ORIGIN, back.origin());
        assertArrayEquals(bytes("order-42"), back.key());
        assertEquals(
                List.of("traceparent", "empty", "none", "traceparent"),
                back.headers().stream().map(Header::key).toList());
    }

    @Test
    void nullKeyAndNullValueStayNull() {
        Envelope back = roundTrip(new Envelope(TARGET, null, ORIGIN, null, null, List.of()));
        assertNull(back.key());
        assertNull(back.value(), "a delayed tombstone must stay a tombstone");
        assertNull(back.partition());
        assertTrue(back.headers().isEmpty());
    }

    @Test
    void emptyIsNotNull() {
        Envelope back = roundTrip(new Envelope(TARGET, null, ORIGIN, new byte[0], new byte[0], List.of()));
        assertArrayEquals(new byte[0], back.key());
        assertArrayEquals(new byte[0], back.value());
    }

    @Test
    void nullAndEmptyHeaderValuesStayDistinct() {
        Envelope back = roundTrip(full());
        assertArrayEquals(new byte[0], back.headers().get(1).value());
        assertNull(back.headers().get(2).value());
    }

    @Test
    void unicodeStringsRoundTrip() {
        Envelope e = new Envelope(
                "t",
                0,
                "intake-日本/0/1",
                bytes("ключ"),
                bytes("värde 😀"),
                List.of(new RecordHeader("grüße-😀-€", bytes("ß")), new RecordHeader("", bytes("empty key"))));
        Envelope back = roundTrip(e);
        assertEquals("intake-日本/0/1", back.origin());
        assertEquals("grüße-😀-€", back.headers().get(0).key());
        assertEquals("", back.headers().get(1).key());
    }

    @Test
    void manyHeadersRoundTrip() {
        List<Header> headers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            headers.add(new RecordHeader("h" + i, i % 3 == 0 ? null : bytes("v".repeat(i % 200))));
        }
        Envelope back = roundTrip(new Envelope(TARGET, null, ORIGIN, null, bytes("x"), headers));
        assertEquals(1000, back.headers().size());
        assertEquals("h999", back.headers().get(999).key());
    }

    @Test
    void oneMebibyteValueRoundTrips() {
        byte[] value = new byte[1 << 20];
        new Random(42).nextBytes(value);
        byte[] encoded = EnvelopeCodec.encode(new Envelope(TARGET, null, ORIGIN, bytes("k"), value, List.of()));
        assertArrayEquals(value, EnvelopeCodec.decode(encoded).value());
        assertTrue(encoded.length <= value.length + TARGET.length() + ORIGIN.length() + 16, "" + encoded.length);
    }

    @Test
    void largestPartitionRoundTrips() {
        assertEquals(
                Integer.MAX_VALUE,
                roundTrip(new Envelope(TARGET, Integer.MAX_VALUE, ORIGIN, null, null, null))
                        .partition());
        assertEquals(
                0, roundTrip(new Envelope(TARGET, 0, ORIGIN, null, null, null)).partition());
    }

    @Test
    void overheadIsAFewBytes() {
        byte[] key = bytes("order-42");
        byte[] value = new byte[200];
        byte[] encoded = EnvelopeCodec.encode(new Envelope(TARGET, null, ORIGIN, key, value, List.of()));
        assertTrue(
                encoded.length <= value.length + TARGET.length() + ORIGIN.length() + 16,
                "encoded " + encoded.length + " bytes");
        // version, flags, target length, origin length, key length, two-byte value length
        assertEquals(7 + TARGET.length() + ORIGIN.length() + key.length + value.length, encoded.length);
    }

    @Test
    void layoutIsTheDocumentedOne() {
        // stored envelopes outlive deployments: this pins version 1 byte for byte
        Envelope e = new Envelope(
                "t",
                300,
                "i/0/9",
                bytes("k"),
                null,
                List.of(new RecordHeader("h", bytes("v")), new RecordHeader("n", null)));
        byte[] expected = {
            1, // version
            0x01 | 0x02 | 0x08, // partition, key, headers; no value
            1,
            't', // target
            5,
            'i',
            '/',
            '0',
            '/',
            '9', // origin
            (byte) 0xAC,
            0x02, // partition 300 as a varint
            1,
            'k', // key
            2, // header count
            1,
            'h',
            2,
            'v', // "h" = "v" (length + 1)
            1,
            'n',
            0, // "n" = null
        };
        assertArrayEquals(expected, EnvelopeCodec.encode(e));
        assertEquals(e, EnvelopeCodec.decode(expected));
    }

    @Test
    void unknownVersionIsNamed() {
        byte[] encoded = EnvelopeCodec.encode(full());
        encoded[0] = 2;
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(encoded));
        assertTrue(ex.getMessage().contains("unknown format version 2"), ex.getMessage());
        encoded[0] = (byte) 0xFF;
        ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(encoded));
        assertTrue(ex.getMessage().contains("version 255"), ex.getMessage());
    }

    @Test
    void emptyAndNullInputAreCorrupt() {
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(new byte[0]));
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(null));
    }

    @Test
    void everyTruncationIsCorrupt() {
        for (Envelope e : List.of(full(), new Envelope(TARGET, null, ORIGIN, null, null, List.of()))) {
            byte[] encoded = EnvelopeCodec.encode(e);
            for (int n = 0; n < encoded.length; n++) {
                byte[] cut = Arrays.copyOf(encoded, n);
                assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(cut), "length " + n);
            }
        }
    }

    @Test
    void trailingBytesAreCorrupt() {
        byte[] encoded = EnvelopeCodec.encode(full());
        byte[] longer = Arrays.copyOf(encoded, encoded.length + 1);
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(longer));
        assertTrue(ex.getMessage().contains("1 unexpected bytes"), ex.getMessage());
    }

    @Test
    void unknownFlagsAreCorrupt() {
        byte[] encoded = EnvelopeCodec.encode(full());
        encoded[1] |= 0x10;
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(encoded));
        assertTrue(ex.getMessage().contains("unknown flags"), ex.getMessage());
    }

    @Test
    void hugeLengthsAreRejectedBeforeAllocating() {
        // a value length of 2^31-1 in a 13-byte input
        byte[] bad = {1, 0x04, 1, 't', 1, 'o', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0, 0};
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(bad));
        assertTrue(ex.getMessage().contains("value needs 2147483647 bytes"), ex.getMessage());
    }

    @Test
    void varintsBeyondIntRangeAreCorrupt() {
        byte[] tooLong = {1, 0x04, 1, 't', 1, 'o', (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0};
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(tooLong));
        byte[] over = {1, 0x04, 1, 't', 1, 'o', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(over));
    }

    @Test
    void absurdHeaderCountsAreCorrupt() {
        byte[] zero = {1, 0x08, 1, 't', 1, 'o', 0};
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(zero));
        byte[] huge = {1, 0x08, 1, 't', 1, 'o', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(huge));
        assertTrue(ex.getMessage().contains("header count"), ex.getMessage());
    }

    @Test
    void malformedUtf8InStringsIsCorrupt() {
        byte[] bad = {1, 0, 1, (byte) 0xC3, 1, 'o'};
        CorruptEnvelopeException ex = assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(bad));
        assertTrue(ex.getMessage().contains("target is not UTF-8"), ex.getMessage());
    }

    @Test
    void randomDamageNeverEscapesAsAnotherException() {
        byte[] original = EnvelopeCodec.encode(full());
        Random random = new Random(7);
        int corrupt = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] damaged = original.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            }
            try {
                EnvelopeCodec.decode(damaged);
            } catch (CorruptEnvelopeException expected) {
                corrupt++;
            }
        }
        assertTrue(corrupt > 1000, "only " + corrupt + " of 20000 damaged inputs detected");
    }

    @Test
    void envelopeEqualityIsByContent() {
        assertEquals(full(), full());
        assertEquals(full().hashCode(), full().hashCode());
        assertNotEquals(
                full(), new Envelope(TARGET, 5, ORIGIN, bytes("order-43"), bytes("{\"order\":42}"), full().headers()));
        assertNotEquals(
                new Envelope(TARGET, null, ORIGIN, null, null, null),
                new Envelope(TARGET, null, ORIGIN, null, new byte[0], null));
    }

    @Test
    void envelopeToStringShowsSizesNotPayloads() {
        String s = full().toString();
        assertTrue(s.contains("value=12 bytes") && s.contains("headers=4"), s);
        assertFalse(s.contains("order\":42"), s);
    }

    @Test
    void envelopeValidatesAndCopiesHeaders() {
        assertThrows(IllegalArgumentException.class, () -> new Envelope(TARGET, -1, ORIGIN, null, null, null));
        assertThrows(NullPointerException.class, () -> new Envelope(null, null, ORIGIN, null, null, null));
        assertThrows(NullPointerException.class, () -> new Envelope(TARGET, null, null, null, null, null));
        List<Header> headers = new ArrayList<>(List.of(new RecordHeader("a", null)));
        Envelope e = new Envelope(TARGET, null, ORIGIN, null, null, headers);
        headers.add(new RecordHeader("b", null));
        assertEquals(1, e.headers().size());
        assertThrows(UnsupportedOperationException.class, () -> e.headers().add(new RecordHeader("c", null)));
    }

    @Test
    void originShape() {
        assertEquals("delay-intake/3/1042", Envelope.origin("delay-intake", 3, 1042));
    }

    @Test
    void anEnvelopeLosesItsOriginAndGetsItBackWithEveryOtherFieldAsItWas() {
        byte[] encoded = EnvelopeCodec.encode(full());

        byte[] stripped =
                EnvelopeCodec.replaceOrigin(encoded, 0, ORIGIN, () -> "").orElseThrow();
        assertEquals(encoded.length - ORIGIN.length(), stripped.length);
        Envelope withoutOrigin = EnvelopeCodec.decode(stripped);
        assertEquals("", withoutOrigin.origin());
        assertEquals(new Envelope(TARGET, 5, "", full().key(), full().value(), full().headers()), withoutOrigin);

        byte[] prefixed = new byte[3 + stripped.length];
        System.arraycopy(stripped, 0, prefixed, 3, stripped.length);
        assertArrayEquals(
                encoded,
                EnvelopeCodec.replaceOrigin(prefixed, 3, "", () -> ORIGIN).orElseThrow());
    }

    @Test
    void anotherOriginOrBytesThatAreNoEnvelopeAreLeftAloneAndTheNewOriginIsNotAskedFor() {
        byte[] encoded = EnvelopeCodec.encode(full());
        java.util.function.Supplier<String> notAsked = () -> {
            throw new AssertionError("asked for the new origin of an envelope that keeps its own");
        };

        assertTrue(EnvelopeCodec.replaceOrigin(encoded, 0, "delay-intake/3/1043", notAsked)
                .isEmpty());
        assertTrue(EnvelopeCodec.replaceOrigin(encoded, 0, "", notAsked).isEmpty());
        assertTrue(EnvelopeCodec.replaceOrigin(bytes("new"), 0, "", notAsked).isEmpty());
        assertTrue(EnvelopeCodec.replaceOrigin(new byte[] {1}, 0, "", notAsked).isEmpty());
        assertTrue(EnvelopeCodec.replaceOrigin(new byte[0], 0, "", notAsked).isEmpty());
        assertTrue(EnvelopeCodec.replaceOrigin(encoded, encoded.length, "", notAsked)
                .isEmpty());
        // cut inside the origin
        assertTrue(EnvelopeCodec.replaceOrigin(Arrays.copyOf(encoded, 4 + TARGET.length()), 0, ORIGIN, notAsked)
                .isEmpty());
    }

    @Test
    void anEnvelopeBehindAPrefixIsStrippedInOneCopyAndDecodedInPlaceWithItsOriginBack() {
        byte[] encoded = EnvelopeCodec.encode(full());
        byte[] prefix = {7, 8, 9};

        byte[] stored = EnvelopeCodec.replaceOrigin(prefix, encoded, 0, ORIGIN, () -> "")
                .orElseThrow();
        assertArrayEquals(prefix, Arrays.copyOf(stored, 3), "the prefix comes first");
        assertEquals(3 + encoded.length - ORIGIN.length(), stored.length);

        assertEquals(full(), EnvelopeCodec.decode(stored, 3, () -> ORIGIN), "the empty origin is given back");
        assertEquals("", EnvelopeCodec.decode(stored, 3, null).origin(), "null leaves it empty");
        java.util.function.Supplier<String> notAsked = () -> {
            throw new AssertionError("asked for the origin of an envelope that has one");
        };
        byte[] kept = new byte[2 + encoded.length];
        System.arraycopy(encoded, 0, kept, 2, encoded.length);
        assertEquals(full(), EnvelopeCodec.decode(kept, 2, notAsked), "an envelope with its origin keeps it");
    }

    @Test
    void decodingBehindAPrefixReportsCorruptionRelativeToTheEnvelope() {
        byte[] encoded = EnvelopeCodec.encode(full());
        byte[] cut = new byte[4 + 10];
        System.arraycopy(encoded, 0, cut, 4, 10);
        CorruptEnvelopeException e =
                assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(cut, 4, () -> ORIGIN));
        assertTrue(e.getMessage().contains("(10 bytes, at byte"), e.getMessage());
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(cut, cut.length, null));
        assertThrows(CorruptEnvelopeException.class, () -> EnvelopeCodec.decode(cut, 0, null), "no version 1 at 0");
    }

    @Test
    void theTargetIsReadWithoutDecodingTheRest() {
        byte[] envelope = EnvelopeCodec.encode(
                new Envelope("orders.timeout", 2, "delay-intake/0/7", "k".getBytes(UTF_8), new byte[300], List.of()));
        assertEquals("orders.timeout", EnvelopeCodec.target(envelope, 0));
        byte[] behind = new byte[envelope.length + 3];
        System.arraycopy(envelope, 0, behind, 3, envelope.length);
        assertEquals("orders.timeout", EnvelopeCodec.target(behind, 3), "from where it starts");
        assertEquals("", EnvelopeCodec.target("plain text".getBytes(UTF_8), 0), "no envelope");
        assertEquals("", EnvelopeCodec.target(Arrays.copyOf(envelope, 8), 0), "cut inside the target");
        assertEquals("", EnvelopeCodec.target(envelope, envelope.length), "nothing there");
    }
}
