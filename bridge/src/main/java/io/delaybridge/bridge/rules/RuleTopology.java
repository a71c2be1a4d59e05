package io.delaybridge.bridge.rules;

import io.delaybridge.schemas.ErrorCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.AutoOffsetReset;
import org.apache.kafka.streams.Topology;

/**
 * The rules as one stateless Kafka Streams topology: a source node per distinct source (Kafka Streams reads a topic
 * once per topology, so rules on the same source share it), a {@link RuleProcessor} behind each, and two sinks, the
 * intake topic and the deadletter topic. Bytes in, bytes out: keys, values and headers are copied, never
 * deserialized, except a JSON value when a rule reads a field of it. No state stores, so RocksDB is never loaded.
 */
public final class RuleTopology {

    static final String INTAKE_SINK = "intake";
    static final String DEADLETTER_SINK = "deadletter";

    private RuleTopology() {}

    /**
     * @param rules           validated rules, at least one
     * @param meters          one per rule, same order
     * @param records         builds and checks the intake records
     * @param intakeTopic     where scheduled and cancel records go
     * @param deadletterTopic where records a rule cannot apply go
     * @param earliest        where a source without committed offsets starts: true its beginning, false its end
     * @param deadlettered    told the code of every deadletter record (the bridge's deadletter meters)
     */
    public static Topology build(
            List<Rule> rules,
            List<RuleMeters> meters,
            RuleRecords records,
            String intakeTopic,
            String deadletterTopic,
            boolean earliest,
            Consumer<ErrorCode> deadlettered) {
        if (rules.isEmpty() || rules.size() != meters.size()) {
            throw new IllegalArgumentException("give at least one rule and one meter set per rule");
        }
        Map<String, List<Integer>> bySource = new LinkedHashMap<>();
        for (int i = 0; i < rules.size(); i++) {
            bySource.computeIfAbsent(rules.get(i).sourceText(), s -> new ArrayList<>())
                    .add(i);
        }
        Topology topology = new Topology();
        AutoOffsetReset reset = earliest ? AutoOffsetReset.earliest() : AutoOffsetReset.latest();
        List<String> processors = new ArrayList<>();
        int n = 0;
        for (List<Integer> group : bySource.values()) {
            Rule first = rules.get(group.get(0));
            String source = "source-" + n;
            String processor = "rules-" + n;
            n++;
            if (first.pattern() != null) {
                topology.addSource(
                        reset, source, new ByteArrayDeserializer(), new ByteArrayDeserializer(), first.pattern());
            } else {
                topology.addSource(
                        reset,
                        source,
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer(),
                        first.topics().toArray(String[]::new));
            }
            List<Rule> groupRules = group.stream().map(rules::get).toList();
            List<RuleMeters> groupMeters = group.stream().map(meters::get).toList();
            topology.addProcessor(
                    processor,
                    () -> new RuleProcessor(groupRules, groupMeters, records, deadletterTopic, deadlettered),
                    source);
            processors.add(processor);
        }
        String[] parents = processors.toArray(String[]::new);
        topology.addSink(INTAKE_SINK, intakeTopic, new ByteArraySerializer(), new ByteArraySerializer(), parents);
        topology.addSink(
                DEADLETTER_SINK, deadletterTopic, new ByteArraySerializer(), new ByteArraySerializer(), parents);
        return topology;
    }
}
