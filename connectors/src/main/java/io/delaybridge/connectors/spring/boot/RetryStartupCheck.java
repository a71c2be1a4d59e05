package io.delaybridge.connectors.spring.boot;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Retries configured but not in place never pass in silence. Once every bean is made (before listener containers
 * start), if any {@code delay-bridge.retry.*} key is set and listeners will not retry through the bridge, it says why
 * and what to do: the start fails when {@code delay-bridge.retry.enabled: true} is set explicitly, a WARN otherwise.
 * The causes it names: Spring Kafka older than {@value SpringKafkaVersion#OLDEST}, no {@code KafkaTemplate} bean,
 * another {@link CommonErrorHandler} bean, a listener container built by a factory without the handler.
 */
final class RetryStartupCheck implements SmartInitializingSingleton {

    private static final Log LOG = LogFactory.getLog(RetryStartupCheck.class);
    private static final String ENABLED = DelayBridgeRetryProperties.PREFIX + ".enabled";

    private final ConfigurableListableBeanFactory beans;
    private final Environment environment;

    RetryStartupCheck(ConfigurableListableBeanFactory beans, Environment environment) {
        this.beans = beans;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        boolean explicit = Boolean.TRUE.equals(environment.getProperty(ENABLED, Boolean.class));
        if (!explicit && !configured()) {
            return;
        }
        List<String> problems = problems();
        if (problems.isEmpty()) {
            return;
        }
        String message = DelayBridgeRetryProperties.PREFIX + " is set, but listeners will NOT retry through the"
                + " bridge (failed records get Spring's default handling: retried at once, then logged and skipped): "
                + String.join("; ", problems);
        if (explicit) {
            throw new IllegalStateException(message + ". The start stops because " + ENABLED
                    + " is true; set it to false to start without" + " retries through the bridge");
        }
        LOG.warn(message + ". (Set " + ENABLED + ": true to stop the start instead, or false to silence this.)");
    }

    /** Any {@code delay-bridge.retry.*} key, from any source (files, arguments, environment variables). */
    private boolean configured() {
        ConfigurationPropertyName prefix = ConfigurationPropertyName.of(DelayBridgeRetryProperties.PREFIX);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.containsDescendantOf(prefix) == ConfigurationPropertyState.PRESENT) {
                return true;
            }
        }
        return false;
    }

    private List<String> problems() {
        List<String> problems = new ArrayList<>();
        SpringKafkaVersion version = SpringKafkaVersion.current();
        if (!version.supported()) {
            problems.add("spring-kafka " + version.version() + " is not supported: use " + SpringKafkaVersion.OLDEST
                    + " or later (Spring Boot 3.5, 4.0, 4.1)");
            return problems;
        }
        Map<String, DelayBridgeErrorHandler> handlers = beans.getBeansOfType(DelayBridgeErrorHandler.class);
        if (handlers.isEmpty()) {
            if (beans.getBeanNamesForType(KafkaOperations.class).length == 0) {
                problems.add("there is no KafkaTemplate bean to send retries with: Spring Boot makes one when its Kafka"
                        + " auto-configuration is on the class path (Boot 4: spring-boot-starter-kafka; Boot 3.5:"
                        + " spring-kafka beside spring-boot-starter), or define a KafkaTemplate bean");
            }
            beans.getBeansOfType(CommonErrorHandler.class)
                    .forEach((name, handler) -> problems.add("the CommonErrorHandler bean '" + name + "' ("
                            + handler.getClass().getName() + ") replaces it:"
                            + " remove that bean, or build it with DelayBridgeErrorHandler.builder(template)"));
            if (problems.isEmpty()) {
                problems.add("the handler was not created; run with --debug and look for"
                        + " DelayBridgeRetryAutoConfiguration in the conditions report");
            }
            return problems;
        }
        containersWithout(handlers.values().iterator().next(), problems);
        return problems;
    }

    /** Listener containers (made by now, not started) whose error handler is not the bridge's. */
    private void containersWithout(DelayBridgeErrorHandler handler, List<String> problems) {
        if (beans.getBeanNamesForType(KafkaListenerEndpointRegistry.class).length == 0) {
            return;
        }
        for (KafkaListenerEndpointRegistry registry :
                beans.getBeansOfType(KafkaListenerEndpointRegistry.class).values()) {
            for (MessageListenerContainer c : registry.getListenerContainers()) {
                if (c instanceof AbstractMessageListenerContainer<?, ?> a && a.getCommonErrorHandler() != handler) {
                    CommonErrorHandler other = a.getCommonErrorHandler();
                    problems.add("the listener container '" + c.getListenerId() + "' has "
                            + (other == null
                                    ? "no error handler set"
                                    : other.getClass().getName())
                            + ": its container factory is not Boot's (a listener container factory bean of your"
                            + " own?); call factory.setCommonErrorHandler(delayBridgeErrorHandler) on it");
                }
            }
        }
    }
}
