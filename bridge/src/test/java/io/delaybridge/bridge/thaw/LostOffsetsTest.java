package io.delaybridge.bridge.thaw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Lost offsets are kept as ranges per partition, and one reported twice counts once. */
class LostOffsetsTest {

    @Test
    void rangesMergeAndRepeatsCountOnce() {
        LostOffsets lost = new LostOffsets();
        assertTrue(lost.isEmpty());
        assertEquals(3, lost.add(2, List.of(5L, 6L, 8L)));
        assertEquals(1, lost.add(2, List.of(6L, 7L)), "6 was known: the hour thawed again after a failure");
        assertEquals(2, lost.add(0, List.of(41L, 40L)));
        assertFalse(lost.isEmpty());
        assertEquals(List.of("intake partition 0 offsets 40-41", "intake partition 2 offsets 5-8"), lost.describe());
        assertEquals(1, lost.add(2, List.of(10L)));
        assertEquals("intake partition 2 offsets 5-8, 10", lost.describe().get(1));
    }
}
