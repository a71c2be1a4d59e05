package io.delaybridge.bridge.delivery;

import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** A message's target topic does not exist, and the broker does not create topics on first use. */
public final class MissingTopicException extends UnknownTopicOrPartitionException {

    private final String topic;

    public MissingTopicException(String topic) {
        super("target topic " + topic + " does not exist");
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }
}
