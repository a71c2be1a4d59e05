package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TargetPolicyTest {

    private final TargetPolicy open = new TargetPolicy("delay-intake", "delay-deadletter", List.of());
    private final TargetPolicy restricted =
            new TargetPolicy("delay-intake", "delay-deadletter", List.of("orders\\..*", "billing-[0-9]+"));

    @ParameterizedTest
    @ValueSource(strings = {"orders.timeout", "a", "A-b_c.9", "delay-other", "x..y"})
    void legalNamesAreAllowedWithoutPatterns(String target) {
        assertDoesNotThrow(() -> open.check(target));
    }

    @Test
    void longestLegalNameIsAllowed() {
        assertDoesNotThrow(() -> open.check("t".repeat(249)));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", ".", "..", "orders timeout", "orders/timeout", "orders:x", "ördérs", "tab\t", "emoji😀"})
    void illegalNamesAreInvalid(String target) {
        ContractViolation v = assertThrows(ContractViolation.class, () -> open.check(target));
        assertEquals(ErrorCode.INVALID_TARGET, v.code());
        assertTrue(v.getMessage().startsWith("delay-target: "), v.getMessage());
        assertTrue(v.getMessage().contains("a-z A-Z 0-9 . _ -"), v.getMessage());
    }

    @Test
    void overlongNameIsInvalidAndTheMessageStaysShort() {
        ContractViolation v = assertThrows(ContractViolation.class, () -> open.check("t".repeat(250)));
        assertEquals(ErrorCode.INVALID_TARGET, v.code());
        assertTrue(v.getMessage().contains("250 characters"), v.getMessage());
        assertTrue(v.getMessage().length() < 300, v.getMessage());
    }

    @Test
    void nullIsInvalid() {
        ContractViolation v = assertThrows(ContractViolation.class, () -> open.check(null));
        assertEquals(ErrorCode.INVALID_TARGET, v.code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"_schemas", "__consumer_offsets", "delay-intake", "delay-deadletter"})
    void internalIntakeAndDeadletterTopicsAreForbidden(String target) {
        ContractViolation v = assertThrows(ContractViolation.class, () -> open.check(target));
        assertEquals(ErrorCode.TARGET_FORBIDDEN, v.code());
        assertTrue(v.getMessage().contains("\"" + target + "\""), v.getMessage());
    }

    @Test
    void allowPatternsMatchTheWholeName() {
        assertDoesNotThrow(() -> restricted.check("orders.timeout"));
        assertDoesNotThrow(() -> restricted.check("billing-42"));
        for (String target : List.of("payments", "billing-42x", "xorders.timeout", "orders")) {
            ContractViolation v = assertThrows(ContractViolation.class, () -> restricted.check(target), target);
            assertEquals(ErrorCode.TARGET_FORBIDDEN, v.code());
            assertTrue(v.getMessage().contains("[orders\\..*, billing-[0-9]+]"), v.getMessage());
        }
    }

    @Test
    void allowPatternsDoNotOverrideTheAlwaysForbiddenTopics() {
        TargetPolicy everything = new TargetPolicy("delay-intake", "delay-deadletter", List.of(".*"));
        for (String target : List.of("_internal", "delay-intake", "delay-deadletter")) {
            ContractViolation v = assertThrows(ContractViolation.class, () -> everything.check(target), target);
            assertEquals(ErrorCode.TARGET_FORBIDDEN, v.code());
        }
    }

    @Test
    void badPatternFailsAtConstructionNamingIt() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new TargetPolicy("in", "dlq", List.of("orders.(")));
        assertTrue(e.getMessage().contains("\"orders.(\""), e.getMessage());
    }
}
