package io.delaybridge.connectors.spring.boot;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Spring Boot auto-configuration: a {@link DelayBridgeErrorHandler} from the {@code delay-bridge.retry.*} properties
 * ({@link DelayBridgeRetryProperties}), which Boot's Kafka auto-configuration sets on the listener container factory
 * it builds, so every {@code @KafkaListener} of the application retries through the bridge.
 *
 * <p>On when this jar, Spring Kafka 3.3 or later and a {@code KafkaTemplate} bean are there (Boot's Kafka
 * auto-configuration makes one; it runs first, on Boot 3.5 and on Boot 4, whose class has another name). Off with
 * {@code delay-bridge.retry.enabled: false}, and when the application defines its own {@link CommonErrorHandler}
 * bean. When {@code delay-bridge.retry.*} is set and the handler cannot be put in place, {@link RetryStartupCheck}
 * says why at start-up.
 */
@AutoConfiguration(
        afterName = {
            DelayBridgeRetryAutoConfiguration.BOOT_4_KAFKA_AUTO_CONFIGURATION,
            DelayBridgeRetryAutoConfiguration.BOOT_3_KAFKA_AUTO_CONFIGURATION
        })
@ConditionalOnClass({KafkaOperations.class, DefaultErrorHandler.class})
@ConditionalOnProperty(
        prefix = DelayBridgeRetryProperties.PREFIX,
        name = "enabled",
        havingValue = "true",
        matchIfMissing = true)
@EnableConfigurationProperties(DelayBridgeRetryProperties.class)
public class DelayBridgeRetryAutoConfiguration {

    /** Spring Boot 4's Kafka auto-configuration (module {@code spring-boot-kafka}). */
    public static final String BOOT_4_KAFKA_AUTO_CONFIGURATION =
            "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration";

    /** Spring Boot 3's Kafka auto-configuration (in {@code spring-boot-autoconfigure}). */
    public static final String BOOT_3_KAFKA_AUTO_CONFIGURATION =
            "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration";

    /**
     * @param templates  the application's {@code KafkaTemplate}: it sends retries and dead letters
     * @param properties {@code delay-bridge.retry.*}
     * @return the error handler Boot's listener container factory picks up
     */
    @Bean
    @ConditionalOnBean(KafkaOperations.class)
    @ConditionalOnMissingBean(CommonErrorHandler.class)
    @Conditional(SupportedSpringKafka.class)
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

    /**
     * @param beans       the application's beans, looked at once all are made
     * @param environment where {@code delay-bridge.retry.*} is read
     * @return the check that fails the start, or warns, when retries are configured and not in place
     */
    @Bean
    static RetryStartupCheck delayBridgeRetryStartupCheck(
            ConfigurableListableBeanFactory beans, Environment environment) {
        return new RetryStartupCheck(beans, environment);
    }

    /** Spring Kafka 3.3 or later (Boot 3.5, 4.0, 4.1): what the handler is built and tested against. */
    static final class SupportedSpringKafka implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return SpringKafkaVersion.current().supported();
        }
    }
}
