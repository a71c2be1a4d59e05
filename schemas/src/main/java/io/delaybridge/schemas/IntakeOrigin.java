package io.delaybridge.schemas;

/**
 * Where an intake record was read: the value of {@link Envelope#origin()} and of {@value DelayHeaders#ORIGIN},
 * {@code topic/partition/offset} (e.g. {@code delay-intake/3/1042}). The topic may itself hold slashes; the partition
 * and offset are the last two parts.
 *
 * @param topic     intake topic
 * @param partition intake partition
 * @param offset    offset of the intake record
 */
public record IntakeOrigin(String topic, int partition, long offset) {

    /** {@code origin} read back, or null if it is not {@code topic/partition/offset}. */
    public static IntakeOrigin parse(String origin) {
        if (origin == null) {
            return null;
        }
        int last = origin.lastIndexOf('/');
        int middle = last <= 0 ? -1 : origin.lastIndexOf('/', last - 1);
        if (middle <= 0) {
            return null;
        }
        try {
            int partition = Integer.parseInt(origin.substring(middle + 1, last));
            long offset = Long.parseLong(origin.substring(last + 1));
            return partition < 0 || offset < 0
                    ? null
                    : new IntakeOrigin(origin.substring(0, middle), partition, offset);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether this is a record of {@code topic}'s partition {@code partition}. */
    public boolean of(String topic, int partition) {
        return this.partition == partition && this.topic.equals(topic);
    }

    @Override
    public String toString() {
        return topic + "/" + partition + "/" + offset;
    }
}
