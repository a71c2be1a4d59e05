package io.delaybridge.schemas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {

    @Test
    void encodingMatchesTheJdkIncludingUnpairedSurrogates() {
        Random random = new Random(1);
        List<String> fixed =
                List.of("", "ascii", "ß€😀", "\uD800", "a\uDC00b", "\uD83D\uDE00\uD83D", "\u0000\u07FF\u0800\uFFFF");
        for (String s : fixed) {
            assertEncodesLikeTheJdk(s);
        }
        for (int i = 0; i < 2000; i++) {
            char[] chars = new char[random.nextInt(20)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = (char) random.nextInt(0x10000);
            }
            assertEncodesLikeTheJdk(new String(chars));
        }
    }

    private static void assertEncodesLikeTheJdk(String s) {
        byte[] jdk = s.getBytes(UTF_8);
        assertEquals(jdk.length, Utf8.encodedLength(s), s);
        byte[] ours = new byte[jdk.length + 2];
        assertEquals(jdk.length + 1, Utf8.encode(s, ours, 1));
        assertArrayEquals(jdk, java.util.Arrays.copyOfRange(ours, 1, jdk.length + 1), s);
    }

    @Test
    void decodesValidTextWithinBounds() throws Utf8.MalformedUtf8 {
        byte[] b = "xxGrüße 😀yy".getBytes(UTF_8);
        assertEquals("Grüße 😀", Utf8.decode(b, 2, b.length - 4));
        assertEquals("", Utf8.decode(b, 0, 0));
    }

    @Test
    void reportsTheFirstBadByteRelativeToTheValue() {
        byte[] b = {'z', 'a', 'b', (byte) 0xC3, '(', 'c'};
        Utf8.MalformedUtf8 e = assertThrows(Utf8.MalformedUtf8.class, () -> Utf8.decode(b, 1, 5));
        assertEquals(2, e.index);
        assertEquals("malformed UTF-8 at byte 2 (0xC3)", e.getMessage());
    }
}
