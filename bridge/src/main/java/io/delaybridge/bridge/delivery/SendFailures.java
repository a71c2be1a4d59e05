package io.delaybridge.bridge.delivery;

import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;

/** Sorts failed sends into those that a later attempt may fix and those it never will. */
public final class SendFailures {

    private SendFailures() {}

    /**
     * True when retrying cannot help: the record is too large for the target, the topic name is illegal, or the
     * bridge is not allowed to write there. Such a message goes to the deadletter topic at once.
     */
    public static boolean isPermanent(Throwable error) {
        return error instanceof RecordTooLargeException
                || error instanceof RecordBatchTooLargeException
                || error instanceof InvalidTopicException
                || error instanceof AuthorizationException
                || error instanceof SerializationException;
    }
}
