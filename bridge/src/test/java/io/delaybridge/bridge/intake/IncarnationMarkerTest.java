package io.delaybridge.bridge.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class IncarnationMarkerTest {

    private static final TopicPartition P0 = new TopicPartition("intake", 0);
    private static final TopicPartition P1 = new TopicPartition("intake", 1);

    @Test
    void theMarkerCarriesTheIncarnation() {
        assertEquals("delay-store-incarnation=abc", IncarnationMarker.of("abc"));
    }

    @Test
    void offsetsOfTheSameIncarnationUnmarkedOrNeverCommittedPass() {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        committed.put(P0, new OffsetAndMetadata(10, IncarnationMarker.of("abc")));
        committed.put(P1, new OffsetAndMetadata(3, "committed by a tool"));
        committed.put(new TopicPartition("intake", 2), null);
        assertNull(IncarnationMarker.mismatch(committed, "abc"));
    }

    @Test
    void anOffsetOfAnotherIncarnationIsNamedWithBothIncarnations() {
        String mismatch =
                IncarnationMarker.mismatch(Map.of(P1, new OffsetAndMetadata(42, IncarnationMarker.of("old"))), "new");
        assertTrue(mismatch.contains("offset 42 of intake-1"), mismatch);
        assertTrue(mismatch.contains("incarnation old"), mismatch);
        assertTrue(mismatch.contains("incarnation new"), mismatch);
    }
}
