package io.delaybridge.connectors.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * The auto-configuration on the Spring line of this test run (Boot 3.5 or 4.x, whichever Kafka auto-configuration is
 * on the class path), and its start-up check: retries configured but not in place stop the start when enabled
 * explicitly, and log a WARN naming the cause otherwise. Pure Spring wiring: no broker is contacted.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryStartupCheckTest {

    private static final String SILENT_LOSS = "listeners will NOT retry through the bridge";

    private final ApplicationContextRunner withKafka = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(bootKafkaAutoConfiguration(), DelayBridgeRetryAutoConfiguration.class))
            .withPropertyValues(
                    "spring.kafka.bootstrap-servers=127.0.0.1:9", "spring.kafka.listener.auto-startup=false");

    private final ApplicationContextRunner withoutKafka = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayBridgeRetryAutoConfiguration.class));

    @Test
    void afterBootsKafkaAutoConfigurationTheHandlerIsWhatBootsContainerFactoryUses(CapturedOutput output) {
        withKafka
                .withPropertyValues("delay-bridge.retry.attempts=3")
                .withUserConfiguration(Listener.class)
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    DelayBridgeErrorHandler handler = context.getBean(DelayBridgeErrorHandler.class);
                    var containers =
                            context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainers();
                    assertEquals(1, containers.size(), "the listener's container");
                    for (var c : containers) {
                        assertEquals(handler, ((AbstractMessageListenerContainer<?, ?>) c).getCommonErrorHandler());
                    }
                });
        assertFalse(output.getAll().contains(SILENT_LOSS), output.getAll());
    }

    @Test
    void retryPropertiesWithoutAKafkaTemplateLogAWarningNamingTheCause(CapturedOutput output) {
        withoutKafka.withPropertyValues("delay-bridge.retry.attempts=4").run(context -> {
            assertNull(context.getStartupFailure());
            assertFalse(context.containsBean("delayBridgeErrorHandler"));
        });
        assertTrue(output.getAll().contains("WARN"), output.getAll());
        assertTrue(output.getAll().contains(SILENT_LOSS), output.getAll());
        assertTrue(output.getAll().contains("there is no KafkaTemplate bean"), output.getAll());
    }

    @Test
    void enabledExplicitlyWithoutAKafkaTemplateTheStartFailsNamingTheCause() {
        withoutKafka.withPropertyValues("delay-bridge.retry.enabled=true").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "the start must fail");
            assertInstanceOf(IllegalStateException.class, failure, failure.toString());
            assertTrue(failure.getMessage().contains("there is no KafkaTemplate bean"), failure.getMessage());
            assertTrue(failure.getMessage().contains("delay-bridge.retry.enabled is true"), failure.getMessage());
        });
    }

    @Test
    void anotherCommonErrorHandlerWinsAWarningNamesItAndEnabledExplicitlyFails(CapturedOutput output) {
        withKafka
                .withUserConfiguration(OwnErrorHandler.class)
                .withPropertyValues("delay-bridge.retry.back-off.delay=2s")
                .run(context -> assertNull(context.getStartupFailure()));
        assertTrue(output.getAll().contains("the CommonErrorHandler bean 'myErrorHandler'"), output.getAll());
        withKafka
                .withUserConfiguration(OwnErrorHandler.class)
                .withPropertyValues("delay-bridge.retry.enabled=true")
                .run(context -> {
                    assertNotNull(context.getStartupFailure());
                    assertTrue(
                            context.getStartupFailure().getMessage().contains("'myErrorHandler'"),
                            context.getStartupFailure().getMessage());
                });
    }

    @Test
    void aContainerFactoryOfTheApplicationsOwnWithoutTheHandlerIsNamed(CapturedOutput output) {
        withKafka
                .withUserConfiguration(OwnContainerFactory.class, Listener.class)
                .withPropertyValues("delay-bridge.retry.attempts=3")
                .run(context -> assertNull(context.getStartupFailure()));
        assertTrue(output.getAll().contains("the listener container 'orders-listener'"), output.getAll());
    }

    @Test
    void nothingConfiguredNothingSaid(CapturedOutput output) {
        withoutKafka.run(context -> assertNull(context.getStartupFailure()));
        assertFalse(output.getAll().contains(SILENT_LOSS), output.getAll());
    }

    @Test
    void disabledNothingSaid(CapturedOutput output) {
        withoutKafka
                .withPropertyValues("delay-bridge.retry.enabled=false", "delay-bridge.retry.attempts=3")
                .run(context -> assertNull(context.getStartupFailure()));
        assertFalse(output.getAll().contains(SILENT_LOSS), output.getAll());
    }

    @Test
    void springKafkaOlderThan33IsNotSupported() {
        assertFalse(new SpringKafkaVersion("3.2.9").supported());
        assertFalse(new SpringKafkaVersion("2.9.13").supported());
        assertTrue(new SpringKafkaVersion("3.3.0").supported());
        assertTrue(new SpringKafkaVersion("3.3.16").supported());
        assertTrue(new SpringKafkaVersion("4.1.2").supported());
        assertTrue(new SpringKafkaVersion(null).supported());
        assertTrue(
                SpringKafkaVersion.current().supported(),
                SpringKafkaVersion.current().toString());
    }

    /** Boot 4's Kafka auto-configuration, or Boot 3's: whichever line this test runs on. */
    static Class<?> bootKafkaAutoConfiguration() {
        for (String name : new String[] {
            DelayBridgeRetryAutoConfiguration.BOOT_4_KAFKA_AUTO_CONFIGURATION,
            DelayBridgeRetryAutoConfiguration.BOOT_3_KAFKA_AUTO_CONFIGURATION
        }) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // the other line
            }
        }
        throw new IllegalStateException("no Spring Boot Kafka auto-configuration on the class path");
    }

    @Configuration(proxyBeanMethods = false)
    static class Listener {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    static class Orders {
        @KafkaListener(id = "orders-listener", topics = "orders")
        void onOrder(String order) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnErrorHandler {
        @Bean
        CommonErrorHandler myErrorHandler() {
            return new DefaultErrorHandler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnContainerFactory {
        @Bean
        @SuppressWarnings({"unchecked", "rawtypes"})
        ConcurrentKafkaListenerContainerFactory<Object, Object> kafkaListenerContainerFactory(
                ConsumerFactory<?, ?> consumerFactory) {
            var factory = new ConcurrentKafkaListenerContainerFactory<Object, Object>();
            factory.setConsumerFactory((ConsumerFactory) consumerFactory);
            factory.setAutoStartup(false);
            return factory;
        }
    }
}
