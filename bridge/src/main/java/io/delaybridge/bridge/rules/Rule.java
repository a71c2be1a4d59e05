package io.delaybridge.bridge.rules;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One delay rule, validated: records of a source topic (or of every topic matching a pattern) are either scheduled
 * to a target after a delay under an id, or, with {@code series}, start a series under an id (its first occurrence
 * not before the delay, if one is given), or cancel the pending message (or series) with an id.
 *
 * @param name      unique among the rules; in metrics, health checks and the {@value RuleRecords#RULE_HEADER} header
 * @param topics    source topics, empty when {@code pattern} is given
 * @param pattern   source topic pattern (matched in full), null when {@code topics} are given
 * @param target    the topic the scheduled record is delivered to; null for a cancel rule
 * @param delay     the delay of a scheduled record; for a series, its start after the source record (null: the
 *                  series' own default); null for a cancel rule
 * @param partition target partition, null to let the target's partitioner decide on the key
 * @param id        the id of a scheduled record ({@link IdTemplate#DEFAULT} unless given); null for a cancel rule
 * @param cancel    the id a cancel rule cancels; null for a scheduling rule
 * @param series    what recurs, for a rule that starts a series; null for a one-shot schedule and a cancel rule
 */
public record Rule(
        String name,
        List<String> topics,
        Pattern pattern,
        String target,
        RuleDelay delay,
        Integer partition,
        IdTemplate id,
        IdTemplate cancel,
        RuleSeries series) {

    public Rule {
        Objects.requireNonNull(name, "name");
        topics = List.copyOf(topics);
        if (topics.isEmpty() == (pattern == null)) {
            throw new IllegalArgumentException("rule " + name + ": give source topics or a pattern, not both");
        }
        boolean schedules = target != null && id != null && (delay != null || series != null);
        boolean cancels = cancel != null && target == null && delay == null && id == null && series == null;
        if (schedules == cancels) {
            throw new IllegalArgumentException(
                    "rule " + name + ": a rule either schedules (target, delay or series, id) or cancels");
        }
    }

    public static Rule schedule(
            String name,
            List<String> topics,
            Pattern pattern,
            String target,
            RuleDelay delay,
            Integer partition,
            IdTemplate id) {
        return new Rule(name, topics, pattern, target, delay, partition, id, null, null);
    }

    public static Rule cancel(String name, List<String> topics, Pattern pattern, IdTemplate cancel) {
        return new Rule(name, topics, pattern, null, null, null, null, cancel, null);
    }

    public boolean cancels() {
        return cancel != null;
    }

    /** The source as shown to people: {@code orders.created} or {@code /orders\..*}/}. */
    public String sourceText() {
        return pattern == null ? String.join(", ", topics) : "/" + pattern.pattern() + "/";
    }

    /** Whether this rule reads {@code topic}. */
    public boolean reads(String topic) {
        return pattern == null ? topics.contains(topic) : pattern.matcher(topic).matches();
    }

    /** What the rule does, for the status page and logs. */
    public String describe() {
        if (cancels()) {
            return "cancel " + cancel;
        }
        String when =
                series == null ? " after " + delay : " " + series + (delay == null ? "" : ", from " + delay + " on");
        return "schedule to " + target + (partition == null ? "" : " partition " + partition) + when + " as " + id;
    }
}
