package io.delaybridge.connectors.spring.bootapp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * An ordinary Spring Boot application with a {@code @KafkaListener} and no error-handling code: its retries come
 * from {@code application.yml} ({@code boot-retry/application.yml}). Orders keyed {@code flaky-...} fail twice, then
 * succeed; {@code failing-...} always fail; {@code invalid-...} throw {@link InvalidOrder}.
 */
@SpringBootApplication
public class OrdersApplication {

    /** What the listener was handed, with the wall-clock time. */
    public record Reception(ConsumerRecord<String, String> record, long receivedAt) {}

    @Component
    public static class OrderListener {

        private final List<Reception> receptions = new CopyOnWriteArrayList<>();

        @KafkaListener(topics = "${app.topic}")
        public void onOrder(ConsumerRecord<String, String> record) {
            receptions.add(new Reception(record, System.currentTimeMillis()));
            if (record.key().startsWith("invalid-")) {
                throw new InvalidOrder("order " + record.key() + " has no items");
            }
            if (record.key().startsWith("failing-")) {
                throw new IllegalStateException("payment refused");
            }
            if (record.key().startsWith("flaky-")
                    && receptions.stream()
                                    .filter(r -> r.record().key().equals(record.key()))
                                    .count()
                            <= 2) {
                throw new IllegalStateException("stock service unavailable");
            }
        }

        public List<Reception> receptions(String key) {
            return receptions.stream().filter(r -> r.record().key().equals(key)).toList();
        }
    }
}
