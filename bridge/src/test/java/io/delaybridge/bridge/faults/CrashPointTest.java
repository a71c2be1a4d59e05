package io.delaybridge.bridge.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The halting itself is exercised by the fault campaign (a child bridge exits with {@link CrashPoint#EXIT_STATUS}). */
class CrashPointTest {

    @AfterEach
    void disarm() {
        CrashPoint.arm(null, 1);
    }

    @Test
    void settingNamesRoundTrip() {
        for (CrashPoint point : CrashPoint.values()) {
            assertEquals(point, CrashPoint.fromSetting(point.settingName()));
        }
        assertEquals(CrashPoint.AFTER_CLAIM_BEFORE_SEND, CrashPoint.fromSetting(" after-claim-before-send "));
        assertNull(CrashPoint.fromSetting(""));
        assertNull(CrashPoint.fromSetting(null));
    }

    @Test
    void unknownNameListsTheValidOnes() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> CrashPoint.fromSetting("after-lunch"));
        assertTrue(e.getMessage().contains("after-send-before-ack"), e.getMessage());
    }

    @Test
    void reachingAPointThatIsNotArmedOrNotYetDueReturns() {
        CrashPoint.arm(CrashPoint.AFTER_SEND_BEFORE_ACK, 3);
        CrashPoint.AFTER_CLAIM_BEFORE_SEND.reach(); // other point: never halts
        CrashPoint.AFTER_STORE_BEFORE_COMMIT.reach();
        CrashPoint.AFTER_SEND_BEFORE_ACK.reach(); // 1st of 3
        CrashPoint.AFTER_SEND_BEFORE_ACK.reach(); // 2nd of 3
        // still running: the third reach would halt, which the fault campaign checks in a child JVM
        assertTrue(Thread.currentThread().isAlive());
    }
}
