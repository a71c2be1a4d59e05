package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ForgottenIdsTest {

    @Test
    void keepsTheLastForgottenAndLetsTheOldestGo() {
        ForgottenIds forgotten = new ForgottenIds(3);
        for (int offset = 0; offset < 5; offset++) {
            forgotten.forgot(new Sends.Message("id-" + offset, "intake/0/" + offset, 0));
        }
        assertFalse(forgotten.holds("id-0", "intake/0/0"), "the oldest two went");
        assertFalse(forgotten.holds("id-1", "intake/0/1"));
        for (int offset = 2; offset < 5; offset++) {
            assertTrue(forgotten.holds("id-" + offset, "intake/0/" + offset), "kept: " + offset);
        }
        assertEquals(1, forgotten.caught(), "a lookup counts nothing; a copy reported counts once");
        assertEquals(2, forgotten.caught());
    }

    @Test
    void aMessageForgottenAgainFromANewerRecordReplacesTheOlder() {
        ForgottenIds forgotten = new ForgottenIds(3);
        forgotten.forgot(new Sends.Message("id", "intake/0/1", 0));
        forgotten.forgot(new Sends.Message("id", "intake/0/7", 0));
        assertFalse(forgotten.holds("id", "intake/0/1"));
        assertTrue(forgotten.holds("id", "intake/0/7"));
    }
}
