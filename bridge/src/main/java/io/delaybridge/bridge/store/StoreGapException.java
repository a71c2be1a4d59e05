package io.delaybridge.bridge.store;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The store holds less of an intake partition than it acknowledged before: its position mark is below what the intake
 * expected. A Redis fail-over with asynchronous replication ({@code waitReplicas: 0}) lost the master's last writes. The
 * writes of the batch that found it were applied (they are idempotent) but the position was not advanced: read the
 * partition again from the stored position.
 */
public class StoreGapException extends StoreException {

    /** One partition whose store position is behind: the records {@code [stored, expected)} may be gone. */
    public record Gap(int partition, long stored, long expected) {
        public long missing() {
            return expected - stored;
        }
    }

    private final List<Gap> gaps;

    public StoreGapException(List<Gap> gaps) {
        super("Redis lost acknowledged writes of intake "
                + gaps.stream()
                        .map(g -> "partition " + g.partition() + " offsets [" + g.stored() + ", " + g.expected() + ")")
                        .collect(Collectors.joining(", "))
                + " (a fail-over to a replica that had not received them?); read them again from the stored position");
        this.gaps = List.copyOf(gaps);
    }

    public List<Gap> gaps() {
        return gaps;
    }
}
