package io.delaybridge.bridge.intake;

import java.util.Properties;
import org.apache.kafka.clients.producer.Producer;

/**
 * The intake's Kafka clients: the settings of its consumer (one is made per connection), and the producer that
 * deadletters refused records.
 */
public record IntakeClients(Properties consumerProperties, Producer<byte[], byte[]> producer) {}
