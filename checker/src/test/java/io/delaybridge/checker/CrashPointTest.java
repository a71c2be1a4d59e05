package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.probe.Checkpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JVM halt itself is exercised by the fault campaign (a child bridge exits with {@link CrashPoint#EXIT_STATUS}). */
class CrashPointTest {

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
    void anArmedPointHaltsTheNthTimeItsCheckpointIsReachedAndNoOtherCheckpointDoes() {
        List<Integer> halts = new ArrayList<>();
        Crashes crashes = Crashes.armed(CrashPoint.AFTER_SEND_BEFORE_ACK, 3, halts::add);
        crashes.reached(Checkpoint.CLAIMED_BEFORE_SEND); // other checkpoints: never halt
        crashes.reached(Checkpoint.STORED_BEFORE_COMMIT);
        crashes.reached(Checkpoint.SENT_BEFORE_ACK); // 1st of 3
        crashes.reached(Checkpoint.SENT_BEFORE_ACK); // 2nd of 3
        assertEquals(List.of(), halts);
        crashes.reached(Checkpoint.SENT_BEFORE_ACK); // 3rd: halts
        assertEquals(List.of(CrashPoint.EXIT_STATUS), halts);
    }

    @Test
    void eachCheckpointOfTheBridgeHasItsCrashPoint() {
        assertEquals(
                List.of(Checkpoint.values()),
                Arrays.stream(CrashPoint.values())
                        .map(CrashPoint::checkpoint)
                        .sorted()
                        .toList());
    }

    @Test
    void withNothingSetTheEnvironmentArmsNothing() {
        assertSame(Crashes.NONE, Crashes.fromEnvironment());
    }
}
