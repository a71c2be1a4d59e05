/**
 * Spring Kafka listeners retry through the delay bridge: one intake topic and any back-off per record, instead of a
 * retry topic per delay ({@code @RetryableTopic}). Start at
 * {@link io.delaybridge.connectors.spring.DelayBridgeErrorHandler}. Needs Spring Kafka 4 on the class path (an
 * optional dependency of this jar).
 */
package io.delaybridge.connectors.spring;
