package io.delaybridge.connectors.spring;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Kafka's own non-blocking retries, for comparison: an always failing listener with {@code @RetryableTopic},
 * 3 attempts, 500 ms then 1000 ms, Spring's defaults otherwise (retry topics suffixed with the delay, created by
 * {@link KafkaAdmin}). Properties {@code test.bootstrap}, {@code test.topic}, {@code test.group}.
 */
@Configuration
@EnableKafka
class RetryableTopicApp {

    static final AtomicInteger RECEPTIONS = new AtomicInteger();
    static final AtomicInteger DEAD_LETTERS = new AtomicInteger();

    @Bean
    KafkaAdmin kafkaAdmin(@Value("${test.bootstrap}") String bootstrap) {
        return new KafkaAdmin(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    @Bean
    KafkaTemplate<String, String> kafkaTemplate(@Value("${test.bootstrap}") String bootstrap) {
        return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(),
                new StringSerializer()));
    }

    @Bean
    ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
            @Value("${test.bootstrap}") String bootstrap) {
        var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
        factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer()));
        return factory;
    }

    @Bean
    TaskScheduler taskScheduler() {
        return new ThreadPoolTaskScheduler();
    }

    @Bean
    AlwaysFailing alwaysFailing() {
        return new AlwaysFailing();
    }

    @Bean
    Seed seed(KafkaTemplate<String, String> template, @Value("${test.topic}") String topic) throws Exception {
        template.send(topic, "payment-8", "{\"payment\":8}").get();
        return new Seed();
    }

    static final class Seed {}

    static class AlwaysFailing {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 500, multiplier = 2.0))
        @KafkaListener(topics = "${test.topic}", groupId = "${test.group}")
        void listen(String value) {
            RECEPTIONS.incrementAndGet();
            throw new IllegalStateException("card declined");
        }

        @DltHandler
        void deadLetter(String value) {
            DEAD_LETTERS.incrementAndGet();
        }
    }
}
