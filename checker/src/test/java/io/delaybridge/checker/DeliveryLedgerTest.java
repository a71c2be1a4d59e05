package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeliveryLedgerTest {

    @Test
    void countsMissingCopiesAndWrongIds() {
        DeliveryLedger ledger = new DeliveryLedger(4, "in");
        ledger.acknowledged(0, 1, 10, 100);
        ledger.acknowledged(1, 1, 11, 100);
        ledger.acknowledged(2, 2, 5, 100);
        // record 3 was never acknowledged: its absence is not a loss
        assertEquals(3, ledger.missing());

        ledger.arrived(0, 150, "in-1-10", false);
        ledger.arrived(0, 140, "in-1-10", false); // a duplicate with the same id; earlier arrival wins
        ledger.arrived(1, 120, "in-1-99", false); // wrong id
        ledger.arrived(2, 130, null, true); // deadlettered counts as reached
        ledger.arrived(7, 130, "x", false); // not ours
        ledger.checkDelayIds();

        assertEquals(0, ledger.missing());
        assertEquals(2, ledger.copies(0));
        assertEquals(140, ledger.firstArrival(0));
        assertEquals(1, ledger.wrongIds());
        assertEquals(1, ledger.strangers());
    }

    @Test
    void repeatsMustCarryTheFirstCopysId() {
        DeliveryLedger ledger = new DeliveryLedger(1, "in");
        ledger.arrived(0, 1, "a", false);
        ledger.arrived(0, 2, "b", false);
        assertEquals(1, ledger.wrongIds());
    }

    @Test
    void readsTheRecordNumberFromTheValue() {
        assertEquals(1234, IntakeLoad.number("1234:xxxx".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(-1, IntakeLoad.number("abc".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(-1, IntakeLoad.number(null));
    }
}
