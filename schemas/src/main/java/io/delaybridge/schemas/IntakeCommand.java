package io.delaybridge.schemas;

import java.util.Objects;

/**
 * What an intake record asks for, as read by {@link IntakeParser}: schedule a message, or cancel one.
 *
 * <pre>{@code
 * IntakeCommand command = parser.parse(record.headers(), record.timestamp(), defaultId);
 * if (command instanceof IntakeCommand.Schedule s) {
 *     store.schedule(s.id(), s.dueAt(), envelope);
 * } else if (command instanceof IntakeCommand.Cancel c) {
 *     store.cancel(c.id());
 * }
 * }</pre>
 */
public sealed interface IntakeCommand permits IntakeCommand.Schedule, IntakeCommand.Cancel {

    /** @return the message id the command applies to */
    String id();

    /**
     * Deliver the record to {@code target} at {@code dueAt}, replacing any pending message with the same id.
     *
     * @param target     topic to deliver to, already checked by the {@link TargetPolicy}
     * @param dueAt      due time in epoch milliseconds; may lie in the past, which means "now"
     * @param id         message id: the {@value DelayHeaders#ID} header, or the default id
     * @param explicitId whether the id came from the {@value DelayHeaders#ID} header
     * @param partition  target partition, or {@code null} to let the target topic's partitioner decide
     */
    record Schedule(String target, long dueAt, String id, boolean explicitId, Integer partition)
            implements IntakeCommand {
        public Schedule {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(id, "id");
            if (partition != null && partition < 0) {
                throw new IllegalArgumentException("partition must be null or >= 0, was " + partition);
            }
        }
    }

    /**
     * Remove the pending message with this id, wherever it is stored. Cancelling an id that is not pending
     * (already delivered, never scheduled) is not an error.
     *
     * @param id the value of {@value DelayHeaders#CANCEL}
     */
    record Cancel(String id) implements IntakeCommand {
        public Cancel {
            Objects.requireNonNull(id, "id");
        }
    }
}
