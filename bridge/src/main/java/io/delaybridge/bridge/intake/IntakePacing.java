package io.delaybridge.bridge.intake;

import java.time.Duration;

/**
 * How the intake loop paces itself.
 *
 * @param pollTimeout     how long one poll waits for records
 * @param commitInterval  how long the offsets of stored records not due soon may wait for their commit; zero commits
 *                        every stored poll at once
 * @param retryBackoff    the first wait after Redis or Kafka refused a batch; doubles up to {@code maxRetryBackoff}
 * @param maxRetryBackoff the longest wait between two tries of the same batch
 */
public record IntakePacing(
        Duration pollTimeout, Duration commitInterval, Duration retryBackoff, Duration maxRetryBackoff) {}
