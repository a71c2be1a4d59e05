package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ContractViolationTest {

    @Test
    void carriesCodeAndMessage() {
        ContractViolation v = new ContractViolation(ErrorCode.INVALID_DELAY, "delay-ms: bad");
        assertSame(ErrorCode.INVALID_DELAY, v.code());
        assertEquals("delay-ms: bad", v.getMessage());
        assertEquals(0, v.getStackTrace().length, "bad input should not pay for a stack trace");
        assertThrows(NullPointerException.class, () -> new ContractViolation(null, "x"));
    }

    @Test
    void quoteShowsPrintableTextAsIs() {
        assertEquals("\"orders.timeout\"", ContractViolation.quote("orders.timeout"));
        assertEquals("\"a b\"", ContractViolation.quote("a b"));
        assertEquals("\"Grüße 日本 😀\"", ContractViolation.quote("Grüße 日本 😀"));
        assertEquals("null", ContractViolation.quote(null));
    }

    @Test
    void quoteEscapesInvisibleAndSpecialCharacters() {
        assertEquals("\"a\\nb\\tc\\r\"", ContractViolation.quote("a\nb\tc\r"));
        assertEquals("\"say \\\"hi\\\" \\\\o/\"", ContractViolation.quote("say \"hi\" \\o/"));
        assertEquals("\"\\u0000\\u001B\"", ContractViolation.quote("\u0000\u001b"));
        assertEquals("\"zero\\u200Bwidth\"", ContractViolation.quote("zero\u200Bwidth"));
        assertEquals("\"nb\\u00A0sp\"", ContractViolation.quote("nb\u00A0sp"));
        assertEquals("\"\\uD800\"", ContractViolation.quote("\uD800"));
        assertEquals("\"\uFFFD\"", ContractViolation.quote("\uFFFD"), "a replacement character is visible");
    }

    @Test
    void quoteTruncatesLongValuesAndSaysHowLong() {
        String q = ContractViolation.quote("x".repeat(5000));
        assertEquals("\"" + "x".repeat(100) + "...\" (5000 characters)", q);
        assertEquals("\"" + "x".repeat(100) + "\"", ContractViolation.quote("x".repeat(100)));
    }

    @Test
    void truncationNeverSplitsASurrogatePair() {
        String q = ContractViolation.quote("😀".repeat(150));
        assertTrue(q.startsWith("\"" + "😀".repeat(100) + "...\""), q);
        assertTrue(q.endsWith("(150 characters)"), q);
    }
}
