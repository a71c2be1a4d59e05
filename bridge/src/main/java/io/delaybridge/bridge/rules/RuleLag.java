package io.delaybridge.bridge.rules;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the rules are behind their sources: per rule, the records of its source topics after the offsets the rules'
 * application has committed (a partition never committed counts from its start). Asked of Kafka at most once per
 * {@code cacheMillis}; -1 while Kafka cannot be asked.
 */
public final class RuleLag {

    private final Admin admin;
    private final String applicationId;
    private final List<Rule> rules;
    private final Clock clock;
    private final long cacheMillis;
    private final long timeoutMillis;
    private Map<String, Long> last = Map.of();
    private long lastAt = Long.MIN_VALUE;

    public RuleLag(
            Admin admin, String applicationId, List<Rule> rules, Clock clock, long cacheMillis, long timeoutMillis) {
        this.admin = admin;
        this.applicationId = applicationId;
        this.rules = List.copyOf(rules);
        this.clock = clock;
        this.cacheMillis = cacheMillis;
        this.timeoutMillis = timeoutMillis;
    }

    /** Lag in records of the rule's sources, -1 if unknown. */
    public synchronized long lag(String rule) {
        long now = clock.millis();
        if (now - lastAt >= cacheMillis || lastAt == Long.MIN_VALUE) {
            last = measure();
            lastAt = now;
        }
        return last.getOrDefault(rule, -1L);
    }

    private Map<String, Long> measure() {
        try {
            Set<String> all = admin.listTopics().names().get(timeoutMillis, TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
                    .partitionsToOffsetAndMetadata()
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
            Set<String> sources = all.stream()
                    .filter(t -> rules.stream().anyMatch(r -> r.reads(t)))
                    .collect(Collectors.toSet());
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            admin.describeTopics(sources)
                    .allTopicNames()
                    .get(timeoutMillis, TimeUnit.MILLISECONDS)
                    .forEach((name, d) -> d.partitions()
                            .forEach(p -> request.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(request).all().get(timeoutMillis, TimeUnit.MILLISECONDS);
            Map<String, Long> byTopic = new HashMap<>();
            ends.forEach((tp, end) -> {
                OffsetAndMetadata c = committed.get(tp);
                long lag = Math.max(0, end.offset() - (c == null ? 0 : c.offset()));
                byTopic.merge(tp.topic(), lag, Long::sum);
            });
            Map<String, Long> out = new HashMap<>();
            for (Rule r : rules) {
                out.put(
                        r.name(),
                        byTopic.entrySet().stream()
                                .filter(e -> r.reads(e.getKey()))
                                .mapToLong(Map.Entry::getValue)
                                .sum());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        } catch (Exception e) {
            return Map.of();
        }
    }
}
