package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
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

    @Test
    void idsOfOneHashAreFoundAndLetGoLikeAnyOther() {
        // "Aa" and "BB" share a hash code, and so do all strings made of them: every one probes the same places
        String[] sameHash = {"AaAa", "AaBB", "BBAa", "BBBB"};
        ForgottenIds forgotten = new ForgottenIds(3);
        for (int i = 0; i < sameHash.length; i++) {
            forgotten.forgot(new Sends.Message(sameHash[i], "intake/0/" + i, 0));
        }
        assertFalse(forgotten.holds("AaAa", "intake/0/0"), "the oldest went");
        for (int i = 1; i < sameHash.length; i++) {
            assertTrue(forgotten.holds(sameHash[i], "intake/0/" + i), "kept: " + sameHash[i]);
        }
        forgotten.forgot(new Sends.Message("AaBB", "intake/0/9", 0)); // again: in its place, the oldest still
        forgotten.forgot(new Sends.Message("AaAa", "intake/0/10", 0));
        assertFalse(forgotten.holds("AaBB", "intake/0/9"), "the oldest went");
        assertTrue(forgotten.holds("BBAa", "intake/0/2"), "found once the one before it on its probe went");
        assertTrue(forgotten.holds("BBBB", "intake/0/3"));
        assertTrue(forgotten.holds("AaAa", "intake/0/10"));
    }

    @Test
    void answersAsAMapOfTheLastForgottenWould() {
        int kept = 64;
        ForgottenIds forgotten = new ForgottenIds(kept);
        Map<String, String> model = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > kept;
            }
        };
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            String id = "id-" + random.nextInt(200);
            String origin = "intake/" + random.nextInt(2) + "/" + random.nextInt(3);
            if (random.nextInt(3) == 0) {
                assertEquals(origin.equals(model.get(id)), forgotten.holds(id, origin), "step " + i + ": " + id);
            } else {
                forgotten.forgot(new Sends.Message(id, origin, 0));
                model.put(id, origin); // forgotten again: the newer origin, in the older's place
            }
        }
    }
}
