package io.delaybridge.connectors;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.connectors.spring.RetryServersAccess;
import io.delaybridge.schemas.DelayHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** {@link DelayedProducer#sendSeries} through a running bridge: one call, every occurrence delivered, then none. */
class SeriesThroughBridgeIT {

    @Test
    void oneCallMakesASeriesTheBridgeDeliversUntilItsCount() throws Exception {
        String target = RetryServersAccess.unique("series-out");
        RetryServersAccess.createTopics(target);
        String id = RetryServersAccess.unique("tick");
        long ts;
        try (DelayedProducer<String, String> producer = new DelayedProducer<>(
                new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, RetryServersAccess.bootstrap()),
                        new StringSerializer(),
                        new StringSerializer()),
                RetryServersAccess.intake())) {
            ts = producer.sendSeries(
                            target,
                            "k",
                            "tick",
                            id,
                            Repeat.every(Duration.ofSeconds(1)).times(3))
                    .get()
                    .timestamp();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> occurrences(target, id).size() >= 3);
            // one more second would hold a fourth: a marker due after it is delivered after it would be
            producer.sendDelayed(target, "marker", "m", Delay.until(java.time.Instant.ofEpochMilli(ts + 4_000)))
                    .get();
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> RetryServersAccess.readAll(target).stream().anyMatch(r -> "marker".equals(r.key())));
        List<ConsumerRecord<String, String>> got = occurrences(target, id);
        assertEquals(3, got.size(), "delay-count 3");
        for (int n = 1; n <= 3; n++) {
            ConsumerRecord<String, String> r = got.get(n - 1);
            assertEquals(Integer.toString(n), header(r, DelayHeaders.OCCURRENCE));
            assertEquals(Long.toString(ts + n * 1000L), header(r, DelayHeaders.DUE_AT));
            assertTrue(r.timestamp() >= ts + n * 1000L, "occurrence " + n + " early");
            assertEquals("tick", r.value());
        }
    }

    private static List<ConsumerRecord<String, String>> occurrences(String target, String id) {
        return RetryServersAccess.readAll(target).stream()
                .filter(r -> id.equals(header(r, DelayHeaders.ID)))
                .toList();
    }

    private static String header(ConsumerRecord<String, String> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
