package io.delaybridge.schemas;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.header.Header;

/**
 * A delayed record as the bridge stores it until it is due: everything needed to deliver it, nothing more. The
 * due time and the id live in the store's index, not here. Serialized by {@link EnvelopeCodec}.
 *
 * <p>Equality compares key, value and header contents. The arrays are not copied: treat them as read-only.
 *
 * @param target    topic to deliver to
 * @param partition target partition, or {@code null} for the target's partitioner
 * @param origin    {@code topic/partition/offset} of the intake record, see {@link #origin(String, int, long)}
 * @param key       record key, may be {@code null}
 * @param value     record value, may be {@code null}: a delayed tombstone
 * @param headers   the user headers (no {@code delay-} headers) in their original order; values may be null
 */
public record Envelope(
        String target, Integer partition, String origin, byte[] key, byte[] value, List<Header> headers) {

    /** Copies the header list; a null list means no headers. */
    public Envelope {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(origin, "origin");
        if (partition != null && partition < 0) {
            throw new IllegalArgumentException("partition must be null or >= 0, was " + partition);
        }
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    /**
     * The value of {@link #origin()} and of {@value DelayHeaders#ORIGIN} for an intake record.
     *
     * @param topic     intake topic
     * @param partition intake partition
     * @param offset    offset of the intake record
     * @return {@code topic/partition/offset}, e.g. {@code delay-intake/3/1042}
     */
    public static String origin(String topic, int partition, long offset) {
        return new IntakeOrigin(topic, partition, offset).toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Envelope e
                && target.equals(e.target)
                && Objects.equals(partition, e.partition)
                && origin.equals(e.origin)
                && Arrays.equals(key, e.key)
                && Arrays.equals(value, e.value)
                && headers.equals(e.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(target, partition, origin, Arrays.hashCode(key), Arrays.hashCode(value), headers);
    }

    /** Sizes rather than contents: payloads can be large and private. */
    @Override
    public String toString() {
        return "Envelope[target=" + target + ", partition=" + partition + ", origin=" + origin + ", key=" + size(key)
                + ", value=" + size(value) + ", headers=" + headers.size() + "]";
    }

    private static String size(byte[] bytes) {
        return bytes == null ? "null" : bytes.length + " bytes";
    }
}
