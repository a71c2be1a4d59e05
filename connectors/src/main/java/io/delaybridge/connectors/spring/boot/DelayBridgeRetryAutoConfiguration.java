package io.delaybridge.connectors.spring.boot;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Spring Boot auto-configuration: a {@link DelayBridgeErrorHandler} from the {@code delay-bridge.retry.*} properties
 * ({@link DelayBridgeRetryProperties}), which Boot's Kafka auto-configuration sets on the listener container factory
 * it builds, so every {@code @KafkaListener} of the application retries through the bridge.
 *
 * <p>On when this jar, Spring Kafka and a {@code KafkaTemplate} bean are there (Boot's Kafka auto-configuration makes
 * one; an application without one, e.g. one that only uses {@code DelayedProducer}, gets nothing). Off with {@code delay-bridge.retry.enabled: false}, and when the application defines its own
 * {@link CommonErrorHandler} bean.
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaOperations.class, DefaultErrorHandler.class})
@ConditionalOnProperty(
        prefix = DelayBridgeRetryProperties.PREFIX,
        name = "enabled",
        havingValue = "true",
        matchIfMissing = true)
@EnableConfigurationProperties(DelayBridgeRetryProperties.class)
public class DelayBridgeRetryAutoConfiguration {

    /**
     * @param templates  the application's {@code KafkaTemplate}: it sends retries and dead letters
     * @param properties {@code delay-bridge.retry.*}
     * @return the error handler Boot's listener container factory picks up
     */
    @Bean
    @ConditionalOnBean(KafkaOperations.class)
    @ConditionalOnMissingBean(CommonErrorHandler.class)
    public DelayBridgeErrorHandler delayBridgeErrorHandler(
            ObjectProvider<KafkaOperations<?, ?>> templates, DelayBridgeRetryProperties properties) {
        KafkaOperations<?, ?> template = templates.getIfUnique();
        if (template == null) {
            throw new IllegalStateException(DelayBridgeRetryProperties.PREFIX + ": found several KafkaTemplate beans"
                    + " and cannot tell which sends the retries; mark one @Primary, set "
                    + DelayBridgeRetryProperties.PREFIX
                    + ".enabled: false, or define your own CommonErrorHandler with DelayBridgeErrorHandler.builder");
        }
        return properties.toBuilder(template).build();
    }
}
