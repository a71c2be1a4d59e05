/**
 * Java helpers for producers of delayed records: optional, since any Kafka client can set the headers of
 * {@link io.delaybridge.schemas.DelayHeaders} itself.
 *
 * <ul>
 *   <li>{@link io.delaybridge.connectors.Delay}: when a record is due, a duration after its timestamp or an
 *       instant.</li>
 *   <li>{@link io.delaybridge.connectors.Repeat}: when a recurring record (a series) is delivered, a cron expression
 *       in a zone or an interval, with its count, end and choices.</li>
 *   <li>{@link io.delaybridge.connectors.DelayedRecords}: builds the intake records that schedule and cancel, for
 *       any {@code Producer}.</li>
 *   <li>{@link io.delaybridge.connectors.DelayedProducer}: wraps a {@code Producer} and adds
 *       {@code sendDelayed(target, key, value, delay)}, {@code sendSeries(target, key, value, id, repeat)} and
 *       {@code cancel(id)}.</li>
 *   <li>{@link io.delaybridge.connectors.Delays} with {@link io.delaybridge.connectors.DelayOptions}: the same from a
 *       Kafka Streams application, one call per stream (needs {@code kafka-streams} on the class path, an optional
 *       dependency of this module).</li>
 *   <li>{@link io.delaybridge.connectors.spring.DelayBridgeErrorHandler}: Spring Kafka listeners retry through the
 *       bridge instead of retry topics; with Spring Boot, from {@code delay-bridge.retry.*} properties (needs
 *       {@code spring-kafka}, and {@code spring-boot-autoconfigure} for Boot, optional dependencies).</li>
 * </ul>
 *
 * <pre>{@code
 * DelayedProducer<String, String> producer = new DelayedProducer<>(kafkaProducer);
 * producer.sendDelayed("orders.timeout", "order-42", "{\"order\":42}", Delay.of(Duration.ofMinutes(30)));
 *
 * // in a Kafka Streams topology: every order times out 30 minutes after its record, unless paid
 * Delays.to(builder.stream("orders.created"), "orders.timeout", record -> Duration.ofMinutes(30),
 *         DelayOptions.<String, String>defaults().withId(record -> "order-timeout:" + record.key()));
 * builder.<String, String>stream("orders.paid")
 *         .processValues(Delays.cancel(record -> "order-timeout:" + record.key()))
 *         .to("delay-intake");
 * }</pre>
 *
 * Teams that cannot change the producing application at all need no code: the bridge's delay rules
 * ({@code rules:} in its configuration) do the same from the topics those applications already write.
 *
 * Arguments are checked before anything is sent, against the same rules the bridge applies
 * ({@link io.delaybridge.schemas.TargetPolicy}, the id limits of {@link io.delaybridge.schemas.IntakeParser}), so a
 * mistake throws {@link java.lang.IllegalArgumentException} at the call instead of ending in the deadletter topic.
 */
package io.delaybridge.connectors;
