package io.delaybridge.bench;

import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import io.delaybridge.connectors.spring.RetryBackOff;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
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
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * "spring-retry": {@code --spring-retry-records} records (default 10,000, produced at {@code --spring-retry-rate} a
 * second) whose Spring Kafka listener fails on the first delivery and succeeds on the retry, 1 s later: once through
 * the bridge ({@link DelayBridgeErrorHandler}, the bridge as a child JVM from its fat jar), once through Spring's own
 * {@code @RetryableTopic} (a retry topic whose container pauses its partition until the back-off has passed), on the
 * same broker, {@value #CONCURRENCY} listener threads each (Spring's defaults otherwise). Retry lateness = the retry's reception - (the failure + 1 s), the same
 * measure for both (the bridge's due time counts from the intake record, a little after the failure, so its
 * lateness includes the send to the intake); topics created = the broker's topics after - before, beside the
 * listened one.
 */
final class SpringRetryScenario implements Scenario {

    private static final long BACK_OFF_MS = 1_000;
    /** Listener threads of each scheme (the listened topic has 8 partitions). */
    static final int CONCURRENCY = 4;

    private final BenchRun run;

    SpringRetryScenario(BenchRun run) {
        this.run = run;
    }

    @Override
    public void run() throws Exception {
        int n = run.options.springRetryRecords;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, run.bootstrap))) {
            String[] topics = run.createTopics("springretry", 3);
            String listened = topics[1];
            try (BridgeProcess bridge = run.startBridge("springretry", topics)) {
                Set<String> before = admin.listTopics().names().get();
                FailOnce listener = new FailOnce(n);
                var template = new KafkaTemplate<String, String>(new DefaultKafkaProducerFactory<>(
                        producerProps(), new StringSerializer(), new StringSerializer()));
                var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
                factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(
                        consumerProps("springretry-bridge-" + run.runId),
                        new StringDeserializer(),
                        new StringDeserializer()));
                factory.setConcurrency(CONCURRENCY);
                factory.setCommonErrorHandler(DelayBridgeErrorHandler.builder(template)
                        .intakeTopic(topics[0])
                        .backOff(RetryBackOff.fixed(Duration.ofMillis(BACK_OFF_MS)))
                        .attempts(2)
                        .build());
                ConcurrentMessageListenerContainer<String, String> container = factory.createContainer(listened);
                container.setupMessageListener((MessageListener<String, String>) listener::onRecord);
                container.start();
                try {
                    produce(listened, n);
                    listener.await(n);
                } finally {
                    container.stop();
                    ((DefaultKafkaProducerFactory<String, String>) template.getProducerFactory()).destroy();
                }
                Set<String> created = new TreeSet<>(admin.listTopics().names().get());
                created.removeAll(before);
                run.put(
                        "spring-retry: through the bridge",
                        "%s; topics created: %d %s (the one intake, shared by" + " every listener, existed)",
                        listener.line(n),
                        created.size(),
                        created);
            }

            String rtTopic = run.createTopics("springrt", 3)[1];
            Set<String> before = admin.listTopics().names().get();
            FailOnce listener = new FailOnce(n);
            RetryableTopicApp.listener = listener;
            try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
                context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new MapPropertySource(
                                "bench",
                                Map.of(
                                        "bench.bootstrap",
                                        run.bootstrap,
                                        "bench.topic",
                                        rtTopic,
                                        "bench.group",
                                        "springretry-rt-" + run.runId)));
                context.register(RetryableTopicApp.class);
                context.refresh();
                produce(rtTopic, n);
                listener.await(n);
            }
            Set<String> created = new TreeSet<>(admin.listTopics().names().get());
            created.removeAll(before);
            run.put(
                    "spring-retry: through @RetryableTopic (baseline)",
                    "%s; topics created: %d %s",
                    listener.line(n),
                    created.size(),
                    created);
        }
    }

    private void produce(String topic, int n) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProps(), new StringSerializer(), new StringSerializer())) {
            long start = System.nanoTime();
            int rate = run.options.springRetryRate;
            for (int i = 0; i < n; i++) {
                long due = start + TimeUnit.SECONDS.toNanos(1) * i / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                producer.send(new ProducerRecord<>(topic, "r-" + i, "x".repeat(200)));
            }
            producer.flush();
        }
    }

    private Map<String, Object> producerProps() {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                run.bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                5);
    }

    private Map<String, Object> consumerProps(String group) {
        return Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                run.bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest");
    }

    /** Fails a record's first delivery, notes the lateness of its second. */
    static final class FailOnce {
        private final Map<String, Long> failedAt = new ConcurrentHashMap<>();
        private final long[] lateness;
        private final AtomicInteger retried = new AtomicInteger();
        private final AtomicInteger extra = new AtomicInteger();
        private final AtomicLong lastProgress = new AtomicLong(System.currentTimeMillis());

        FailOnce(int n) {
            lateness = new long[n];
        }

        void onRecord(ConsumerRecord<String, String> record) {
            long now = System.currentTimeMillis();
            lastProgress.set(now);
            Long failed = failedAt.putIfAbsent(record.key(), now);
            if (failed == null) {
                throw new IllegalStateException("first delivery of " + record.key() + " fails");
            }
            int i = retried.getAndIncrement();
            if (i < lateness.length) {
                lateness[i] = now - failed - BACK_OFF_MS;
            } else {
                extra.incrementAndGet();
            }
        }

        /** Until every record was retried, or nothing happened for 60 s. */
        void await(int n) throws InterruptedException {
            long lastLog = System.currentTimeMillis();
            while (retried.get() < n && System.currentTimeMillis() - lastProgress.get() < 60_000) {
                Thread.sleep(100);
                if (System.currentTimeMillis() - lastLog > 5_000) {
                    BenchRun.log("spring-retry: %,d failed, %,d retried of %,d", failedAt.size(), retried.get(), n);
                    lastLog = System.currentTimeMillis();
                }
            }
        }

        String line(int n) {
            int count = Math.min(retried.get(), lateness.length);
            long[] sorted = Arrays.copyOf(lateness, count);
            Arrays.sort(sorted);
            long early = Arrays.stream(sorted).filter(l -> l < 0).count();
            return String.format(
                    "%,d of %,d retried once after a 1 s back-off (%d more than once); retry lateness"
                            + " p50 %d ms, p99 %d ms, max %d ms; %d early",
                    count,
                    n,
                    extra.get(),
                    at(sorted, 0.50),
                    at(sorted, 0.99),
                    count == 0 ? -1 : sorted[count - 1],
                    early);
        }

        private static long at(long[] sorted, double q) {
            return sorted.length == 0
                    ? -1
                    : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
        }
    }

    /** Spring's own non-blocking retries: {@code @RetryableTopic}, 2 attempts, 1 s, Spring's defaults otherwise. */
    @Configuration
    @EnableKafka
    static class RetryableTopicApp {

        static volatile FailOnce listener;

        @Bean
        KafkaAdmin kafkaAdmin(@Value("${bench.bootstrap}") String bootstrap) {
            return new KafkaAdmin(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        }

        @Bean
        KafkaTemplate<String, String> kafkaTemplate(@Value("${bench.bootstrap}") String bootstrap) {
            return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(
                    Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(),
                    new StringSerializer()));
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
                @Value("${bench.bootstrap}") String bootstrap) {
            var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
            factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(
                    Map.of(
                            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                            "earliest"),
                    new StringDeserializer(),
                    new StringDeserializer()));
            factory.setConcurrency(CONCURRENCY);
            return factory;
        }

        @Bean
        TaskScheduler taskScheduler() {
            return new ThreadPoolTaskScheduler();
        }

        @Bean
        Listener listener() {
            return new Listener();
        }

        static class Listener {
            @RetryableTopic(attempts = "2", backOff = @BackOff(delay = BACK_OFF_MS))
            @KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
            void listen(ConsumerRecord<String, String> record) {
                listener.onRecord(record);
            }

            @DltHandler
            void deadLetter(ConsumerRecord<String, String> record) {
                // none expected: every record succeeds on its retry
            }
        }
    }
}
