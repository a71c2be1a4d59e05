package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleLag;
import io.delaybridge.bridge.rules.RuleMeters;
import io.delaybridge.bridge.rules.RulesRunner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the status page and the health checks show of the delay rules: per rule, what it does and its counts. */
public final class RulesReport {

    /** No rules configured. */
    public static final RulesReport NONE = new RulesReport(List.of(), List.of(), null, null);

    private final List<Rule> rules;
    private final List<RuleMeters> meters;
    private final RulesRunner runner;
    private final RuleLag lag;

    public RulesReport(List<Rule> rules, List<RuleMeters> meters, RulesRunner runner, RuleLag lag) {
        this.rules = List.copyOf(rules);
        this.meters = List.copyOf(meters);
        this.runner = runner;
        this.lag = lag;
    }

    /** One map per rule: name, source, action, state, scheduled, cancelled, rejected, lag (-1: unknown). */
    public List<Map<String, Object>> rows() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            RuleMeters m = meters.get(i);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", r.name());
            row.put("source", r.sourceText());
            row.put("action", r.describe());
            row.put("state", runner.state().name());
            row.put("scheduled", m.scheduled());
            row.put("cancelled", m.cancelled());
            row.put("rejected", m.rejected());
            row.put("lag", lag.lag(r.name()));
            out.add(row);
        }
        return out;
    }

    /** Healthy while the rules' Kafka Streams application runs (or rebalances); the message carries the counts. */
    public HealthCheck healthCheck(int index) {
        Rule r = rules.get(index);
        RuleMeters m = meters.get(index);
        return new HealthCheck() {
            @Override
            protected Result check() {
                String counts = String.format(
                        "%s: %s; scheduled %d, cancelled %d, rejected %d, source lag %d",
                        r.sourceText(), r.describe(), m.scheduled(), m.cancelled(), m.rejected(), lag.lag(r.name()));
                return runner.isHealthy()
                        ? Result.healthy("%s", counts)
                        : Result.unhealthy("rules are %s (not running); %s", runner.state(), counts);
            }
        };
    }

    public List<Rule> rules() {
        return rules;
    }
}
