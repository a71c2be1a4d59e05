package io.delaybridge.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IntakeOriginTest {

    @Test
    void readsBackWhatTheEnvelopeWrites() {
        IntakeOrigin origin = IntakeOrigin.parse(Envelope.origin("delay-intake", 3, 1042));
        assertEquals(new IntakeOrigin("delay-intake", 3, 1042), origin);
        assertEquals("delay-intake/3/1042", origin.toString());
        assertTrue(origin.of("delay-intake", 3));
        assertFalse(origin.of("delay-intake", 4));
        assertFalse(origin.of("other", 3));
    }

    @Test
    void aTopicMayHoldSlashes() {
        assertEquals(new IntakeOrigin("team/a/intake", 0, 7), IntakeOrigin.parse("team/a/intake/0/7"));
    }

    @Test
    void anythingElseIsNotAnOrigin() {
        assertNull(IntakeOrigin.parse(null));
        assertNull(IntakeOrigin.parse("delay-intake/3"));
        assertNull(IntakeOrigin.parse("/3/5"));
        assertNull(IntakeOrigin.parse("delay-intake/x/5"));
        assertNull(IntakeOrigin.parse("delay-intake/3/-5"));
        assertNull(IntakeOrigin.parse("delay-intake/3/"));
    }
}
