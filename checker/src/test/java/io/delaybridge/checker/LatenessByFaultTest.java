package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatenessByFaultTest {

    private static final List<LatenessByFault.Window> WINDOWS = List.of(
            new LatenessByFault.Window(Fault.KILL, "kill -9 bridge-1", 10_000, 20_000),
            new LatenessByFault.Window(Fault.BROKER, "kill -9 Kafka broker", 30_000, 40_000),
            new LatenessByFault.Window(Fault.KILL, "kill -9 bridge-2", 50_000, 55_000));

    @Test
    void aRecordIsChargedToTheFirstFaultBegunWhileItWaited() {
        LatenessByFault byFault = new LatenessByFault(WINDOWS);
        assertEquals(0, byFault.cause(9_000, 12_000), "due before the kill, delivered after it");
        assertEquals(1, byFault.cause(29_000, 52_000), "waited through the broker kill and the second kill");
        assertEquals(1, byFault.cause(30_000, 31_000), "due as the broker kill began: the one begun before");
    }

    @Test
    void withoutAFaultWhileItWaitedTheLastOneBeforeItsDueTimeIsCharged() {
        LatenessByFault byFault = new LatenessByFault(WINDOWS);
        assertEquals(0, byFault.cause(15_000, 19_000), "the dead bridge's shards still unowned");
        assertEquals(2, byFault.cause(60_000, 70_000));
        assertEquals(-1, byFault.cause(1_000, 5_000), "no fault had begun");
    }

    @Test
    void onlyRecordsLateByMoreThanTheThresholdCount() {
        LatenessByFault byFault = new LatenessByFault(WINDOWS);
        byFault.record(11_000, 11_000 + LatenessByFault.THRESHOLD_MS);
        byFault.record(11_000, 11_001 + LatenessByFault.THRESHOLD_MS);
        byFault.record(12_000, 21_500);
        byFault.record(1_000, 4_000);
        assertEquals(2, byFault.lateCount(0));
        assertEquals(0, byFault.lateCount(1));
        assertEquals(1, byFault.unattributed());
        assertEquals(
                List.of(
                        "kill         kill -9 bridge-1 (10.0 s until every bridge was healthy again; 2 late > 1 s, max 9.5 s)",
                        "broker       kill -9 Kafka broker (10.0 s until every bridge was healthy again; none late > 1 s)",
                        "kill         kill -9 bridge-2 (5.0 s until every bridge was healthy again; none late > 1 s)"),
                byFault.faultLog());
        assertEquals(
                List.of(
                        "kill         x2: 2 late > 1 s, max 9.5 s",
                        "broker       x1: none late > 1 s",
                        "no fault yet     1 late > 1 s, max 3.0 s"),
                byFault.byKind());
    }

    @Test
    void windowsMustComeInTheOrderTheyRan() {
        assertThrows(
                IllegalArgumentException.class, () -> new LatenessByFault(List.of(WINDOWS.get(1), WINDOWS.get(0))));
    }
}
