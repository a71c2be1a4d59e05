/**
 * Spring Boot auto-configuration of {@link io.delaybridge.connectors.spring.DelayBridgeErrorHandler} from
 * {@code application.yml}: see {@link io.delaybridge.connectors.spring.boot.DelayBridgeRetryProperties}.
 */
package io.delaybridge.connectors.spring.boot;
