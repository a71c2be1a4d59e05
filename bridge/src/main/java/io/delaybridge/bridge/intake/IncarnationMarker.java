package io.delaybridge.bridge.intake;

import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The store's incarnation in the committed offsets' metadata: offsets committed while Redis held one incarnation
 * promise data that a Redis holding another (it came back empty, or was replaced) does not have. Holds no connection.
 */
final class IncarnationMarker {

    /** Prefix of the committed offsets' metadata; the store's incarnation follows. */
    static final String PREFIX = "delay-store-incarnation=";

    private IncarnationMarker() {}

    /** The metadata to commit while the store holds {@code incarnation}. */
    static String of(String incarnation) {
        return PREFIX + incarnation;
    }

    /**
     * Describes the first offset committed under an incarnation other than {@code incarnation}, or returns null if
     * there is none. Offsets without a marker (committed by something else, or never) pass.
     */
    static String mismatch(Map<TopicPartition, OffsetAndMetadata> committed, String incarnation) {
        String expected = of(incarnation);
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
            OffsetAndMetadata offset = e.getValue();
            if (offset != null
                    && offset.metadata() != null
                    && offset.metadata().startsWith(PREFIX)
                    && !offset.metadata().equals(expected)) {
                return "offset " + offset.offset() + " of " + e.getKey() + " was committed while Redis held "
                        + "incarnation " + offset.metadata().substring(PREFIX.length()) + ", but Redis now holds "
                        + "incarnation " + incarnation + " (it came back empty or was replaced)";
            }
        }
        return null;
    }
}
