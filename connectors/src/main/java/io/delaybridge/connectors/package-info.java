/**
 * Java helpers for producers of delayed records: optional, since any Kafka client can set the headers of
 * {@link io.delaybridge.schemas.DelayHeaders} itself.
 *
 * <ul>
 *   <li>{@link io.delaybridge.connectors.Delay}: when a record is due, a duration after its timestamp or an
 *       instant.</li>
 *   <li>{@link io.delaybridge.connectors.DelayedRecords}: builds the intake records that schedule and cancel, for
 *       any {@code Producer}.</li>
 *   <li>{@link io.delaybridge.connectors.DelayedProducer}: wraps a {@code Producer} and adds
 *       {@code sendDelayed(target, key, value, delay)} and {@code cancel(id)}.</li>
 * </ul>
 *
 * <pre>{@code
 * DelayedProducer<String, String> producer = new DelayedProducer<>(kafkaProducer);
 * producer.sendDelayed("orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)));
 * }</pre>
 *
 * Arguments are checked before anything is sent, against the same rules the bridge applies
 * ({@link io.delaybridge.schemas.TargetPolicy}, the id limits of {@link io.delaybridge.schemas.IntakeParser}), so a
 * mistake throws {@link java.lang.IllegalArgumentException} at the call instead of ending in the deadletter topic.
 */
package io.delaybridge.connectors;
