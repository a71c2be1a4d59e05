package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleDelay;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.TargetPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@code rules:} list: delay rules that schedule or cancel from topics producers already write to (see
 * {@link RuleFactory} for one rule, {@link RuleEngineFactory} for how they run). Empty by default: no rules, no
 * Kafka Streams.
 *
 * <p>Checked at start-up, each problem naming the rule's key ({@code rules.order-paid.cancel}), the value and the fix: every
 * rule on its own ({@link RuleFactory}); names unique; a pattern must not match the source topic of another rule
 * (Kafka Streams reads a topic once: give such rules the same source); a cancel rule's template must be able to
 * match the id of some scheduling rule (unless {@code external: true}); and, once the topics are known
 * ({@link #build}), targets the intake's allow-list accepts and sources that are neither the intake nor the
 * deadletter topic.
 */
@SettingsCheck
public class RulesFactory implements SettingsCheck.Checked {

    private final List<RuleFactory> rules;

    public RulesFactory() {
        this(List.of());
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public RulesFactory(List<RuleFactory> rules) {
        this.rules = rules == null ? List.of() : List.copyOf(rules);
    }

    @JsonValue
    public List<RuleFactory> getRules() {
        return rules;
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    @Override
    public void check(SettingsCheck.Problems problems) {
        int before = problems.size();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < rules.size(); i++) {
            RuleFactory r = rules.get(i);
            if (r == null) {
                problems.add(key(i), "is empty: give the rule's name, source and what it does");
                continue;
            }
            r.check(key(i), problems);
            if (r.getName() != null && !names.add(r.getName())) {
                problems.add(
                        key(i) + ".name",
                        "is \"" + r.getName() + "\", the name of an earlier rule: give each" + " rule its own name");
            }
        }
        if (problems.size() > before) {
            return; // the checks across rules need every rule to be valid on its own
        }
        List<Rule> built = rules.stream().map(RuleFactory::build).toList();
        for (int i = 0; i < built.size(); i++) {
            Rule a = built.get(i);
            for (int j = 0; j < built.size(); j++) {
                Rule b = built.get(j);
                if (a.pattern() != null
                        && b.pattern() == null
                        && b.topics().stream().anyMatch(a::reads)) {
                    problems.add(
                            key(i) + ".sourcePattern",
                            "is \"" + a.pattern().pattern() + "\", which matches "
                                    + b.topics() + ", the source of rule " + b.name()
                                    + ": Kafka Streams reads a topic once."
                                    + " Give both rules the same source, or narrow the pattern");
                }
            }
            if (a.cancels() && !rules.get(i).isExternal()) {
                List<Rule> schedules = built.stream().filter(r -> !r.cancels()).toList();
                boolean matches = schedules.stream().anyMatch(s -> a.cancel().canMatch(a.name(), s.id(), s.name()));
                if (!schedules.isEmpty() && !matches) {
                    problems.add(
                            key(i) + ".cancel",
                            "is \"" + a.cancel() + "\", which can never match the id of a"
                                    + " message the rules schedule ("
                                    + schedules.stream()
                                            .map(s -> s.name() + ": " + s.id())
                                            .collect(Collectors.joining(", "))
                                    + "): use the scheduling rule's id template, e.g."
                                    + " the same literal prefix, or set external: true if producers schedule these ids");
                }
            }
        }
    }

    /** How a problem names a rule: {@code order-timeout}, or {@code #2} (from 0) while it has no usable name. */
    private String key(int index) {
        String name = rules.get(index) == null ? null : rules.get(index).getName();
        return name == null || name.isBlank() ? "#" + index : name;
    }

    /**
     * The rules, checked against the topics and the intake's target policy.
     *
     * @throws IllegalArgumentException naming every rule that targets a forbidden topic or reads the intake or
     *                                  deadletter topic
     */
    public List<Rule> build(
            String intakeTopic, String deadletterTopic, List<String> allowedTargets, long maxDelayMillis) {
        TargetPolicy policy = new TargetPolicy(intakeTopic, deadletterTopic, allowedTargets);
        List<String> problems = new ArrayList<>();
        List<Rule> built = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i).build();
            built.add(rule);
            for (String own : List.of(intakeTopic, deadletterTopic)) {
                if (rule.reads(own)) {
                    problems.add("rules." + key(i) + ".source" + (rule.pattern() == null ? "" : "Pattern") + ": "
                            + rule.sourceText() + " reads " + own + ", the bridge's own topic: the rule would read"
                            + " what it writes. Read the topics your producers write to");
                }
            }
            if (!rule.cancels()) {
                try {
                    policy.check(rule.target());
                } catch (ContractViolation v) {
                    problems.add(
                            "rules." + key(i) + ".target: " + v.getMessage().replace("delay-target: ", "")
                                    + ". Change the target, or allow it in intake.allowedTargets");
                }
                if (rule.delay() instanceof RuleDelay.Fixed f && f.delayMillis() > maxDelayMillis) {
                    problems.add("rules." + key(i) + ".delay: " + rules.get(i).getDelay()
                            + " is longer than intake.maxDelay;" + " shorten it or raise intake.maxDelay");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("delay rules cannot start:\n  " + String.join("\n  ", problems));
        }
        return built;
    }
}
