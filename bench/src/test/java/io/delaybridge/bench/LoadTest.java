package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class LoadTest {

    @Test
    void everyPhaseOfOneByteReadsBackAsWritten() {
        for (int phase = 0; phase <= 255; phase++) {
            ByteBuffer value = ByteBuffer.allocate(Load.VALUE_BYTES);
            Load.writeHead(value, 1_000L, 42L, phase);
            assertEquals(phase, Load.phaseOf(value));
            assertEquals(1_000L, value.getLong(0));
            assertEquals(42L, value.getLong(8));
        }
    }

    @Test
    void aPhaseThatDoesNotFitOneByteIsRefused() {
        ByteBuffer value = ByteBuffer.allocate(Load.VALUE_BYTES);
        assertThrows(IllegalArgumentException.class, () -> Load.writeHead(value, 0, 0, 256));
        assertThrows(IllegalArgumentException.class, () -> Load.writeHead(value, 0, 0, -1));
    }
}
