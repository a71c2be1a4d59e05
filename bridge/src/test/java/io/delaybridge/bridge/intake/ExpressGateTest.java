package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ExpressGateTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final long UNKNOWN = Long.MAX_VALUE;

    @Test
    void aDefaultIdScheduleDueWithinTheWindowTakesTheExpressPath() {
        ExpressGate gate = new ExpressGate(200, 100, 1_000_000);
        assertTrue(gate.admit(0, "in-0-1", "in-0-1", NOW - 60_000, 100, NOW), "overdue");
        assertTrue(gate.admit(1, "in-1-1", "in-1-1", NOW + 200, 100, NOW), "at the window's edge");
        assertFalse(gate.admit(2, "in-2-1", "in-2-1", NOW + 201, 100, NOW), "past the window");
        assertEquals(2, gate.heldRecords());
        assertEquals(200, gate.heldBytes());
    }

    @Test
    void explicitIdsAnUnknownClockAndAnOffSwitchPark() {
        ExpressGate gate = new ExpressGate(200, 100, 1_000_000);
        assertFalse(gate.admit(0, "order-7", "in-0-1", NOW, 100, NOW), "explicit id");
        assertFalse(gate.admit(2, "in-2-1", "in-2-1", NOW, 100, UNKNOWN), "Redis' clock unknown");
        ExpressGate off = new ExpressGate(ExpressGate.OFF, 100, 1_000_000);
        assertFalse(off.admit(0, "in-0-1", "in-0-1", NOW - 1, 100, NOW), "express path off");
        assertEquals(0, gate.heldRecords() + off.heldRecords());
    }

    @Test
    void onceARecordOfAPartitionParksTheRestOfItsPollParksToo() {
        ExpressGate gate = new ExpressGate(200, 100, 1_000_000);
        assertFalse(gate.admit(0, "order-7", "in-0-1", NOW, 100, NOW));
        assertFalse(gate.admit(0, "in-0-2", "in-0-2", NOW, 100, NOW), "behind a parked record");
        assertTrue(gate.admit(1, "in-1-2", "in-1-2", NOW, 100, NOW), "another partition goes on");

        gate.beginPoll();
        assertTrue(gate.admit(0, "in-0-3", "in-0-3", NOW, 100, NOW), "the next poll starts afresh");
    }

    @Test
    void aFullBufferParksByRecordsOrBytesUntilPlacesAreReleased() {
        ExpressGate byRecords = new ExpressGate(200, 2, 1_000_000);
        assertTrue(byRecords.admit(0, "in-0-1", "in-0-1", NOW, 100, NOW));
        assertTrue(byRecords.admit(1, "in-1-1", "in-1-1", NOW, 100, NOW));
        assertFalse(byRecords.admit(2, "in-2-1", "in-2-1", NOW, 100, NOW));
        byRecords.released(100);
        byRecords.beginPoll();
        assertTrue(byRecords.admit(2, "in-2-2", "in-2-2", NOW, 100, NOW));

        ExpressGate byBytes = new ExpressGate(200, 100, 250);
        assertTrue(byBytes.admit(0, "in-0-1", "in-0-1", NOW, 200, NOW));
        assertFalse(byBytes.admit(1, "in-1-1", "in-1-1", NOW, 51, NOW));
        assertTrue(byBytes.admit(2, "in-2-1", "in-2-1", NOW, 50, NOW));
        assertEquals(250, byBytes.heldBytes());
    }
}
