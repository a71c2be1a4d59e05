package io.delaybridge.bridge.e2e;

import io.delaybridge.schemas.DelayHeaders;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The copies a consumer of a target read of each key: which keys arrived twice, and where each copy lies. */
final class Copies {

    private Copies() {}

    static List<String> duplicates(KafkaClient.Collector collector) {
        Map<String, Set<String>> copies = copies(collector);
        return copies.entrySet().stream()
                .filter(e -> e.getValue().size() > 1)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /**
     * The keys delivered more than once, each with where its copies lie ({@code partition@offset}, the origin the
     * bridge gave it): the first thing to read when an exactly-once assertion fails.
     */
    static String describeDuplicates(KafkaClient.Collector collector) {
        StringBuilder text = new StringBuilder();
        copies(collector).forEach((key, copies) -> {
            if (copies.size() > 1) { // from one snapshot: records still arrive
                text.append(key).append(' ').append(copies).append("; ");
            }
        });
        return text.toString();
    }

    /**
     * Each key's copies, as {@code partition@offset (origin, attempt, timestamp)}: a consumer that read one offset twice (a broker restart
     * can make it fetch again) saw one delivery, not two.
     */
    private static Map<String, Set<String>> copies(KafkaClient.Collector collector) {
        Map<String, Set<String>> copies = new TreeMap<>();
        for (KafkaClient.Received received : collector.received()) {
            copies.computeIfAbsent(received.key(), k -> new TreeSet<>())
                    .add(received.record().partition() + "@" + received.record().offset() + " ("
                            + received.header(DelayHeaders.ORIGIN) + ", attempt "
                            + received.header(DelayHeaders.ATTEMPT)
                            + ", sent " + received.record().timestamp() + ")");
        }
        return copies;
    }
}
