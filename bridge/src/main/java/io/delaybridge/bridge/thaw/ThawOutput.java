package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.delivery.DeadletterMeters;
import org.apache.kafka.clients.producer.Producer;

/** Where the thaw writes and counts: the producer of refused records' deadletters, their meters, the thaw's. */
public record ThawOutput(Producer<byte[], byte[]> producer, DeadletterMeters deadletters, ThawMetrics metrics) {}
