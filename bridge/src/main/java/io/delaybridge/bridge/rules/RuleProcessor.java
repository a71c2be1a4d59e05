package io.delaybridge.bridge.rules;

import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.ErrorCode;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Applies the rules of one source to each of its records: one intake record per rule, or, for a rule that cannot be
 * applied to the record, one deadletter record with the reason. The other rules, and the next record, go on.
 */
final class RuleProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private final List<Rule> rules;
    private final List<RuleMeters> meters;
    private final RuleRecords records;
    private final String deadletterTopic;
    private final Consumer<ErrorCode> deadlettered;
    private ProcessorContext<byte[], byte[]> context;

    RuleProcessor(
            List<Rule> rules,
            List<RuleMeters> meters,
            RuleRecords records,
            String deadletterTopic,
            Consumer<ErrorCode> deadlettered) {
        this.rules = rules;
        this.meters = meters;
        this.records = records;
        this.deadletterTopic = deadletterTopic;
        this.deadlettered = deadlettered;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata where = context.recordMetadata().orElseThrow();
        RuleInput in = new RuleInput(
                where.topic(),
                where.partition(),
                where.offset(),
                record.timestamp(),
                record.key(),
                record.value(),
                record.headers());
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            if (!rule.reads(in.topic)) {
                continue;
            }
            try {
                context.forward(records.intake(rule, in), RuleTopology.INTAKE_SINK);
                (rule.cancels() ? meters.get(i).cancelled : meters.get(i).scheduled).mark();
            } catch (ContractViolation v) {
                context.forward(
                        RuleRecords.deadletter(deadletterTopic, rule, in, v.code(), v.getMessage()),
                        RuleTopology.DEADLETTER_SINK);
                meters.get(i).rejected.mark();
                deadlettered.accept(v.code());
            }
        }
    }
}
