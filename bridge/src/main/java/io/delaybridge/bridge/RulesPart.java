package io.delaybridge.bridge;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.delivery.DeadletterMeters;
import io.delaybridge.bridge.rules.Rule;
import io.delaybridge.bridge.rules.RuleLag;
import io.delaybridge.bridge.rules.RuleMeters;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.bridge.rules.RuleTopology;
import io.delaybridge.bridge.rules.RulesRunner;
import io.delaybridge.schemas.IntakeParser;
import io.delaybridge.schemas.TargetPolicy;
import io.dropwizard.core.setup.Environment;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * Wires the delay rules, a part of {@link DelayBridgeApplication}'s wiring kept in its own class: the rules, their
 * Kafka Streams runner (managed), a health check ({@code rule-<name>}) and meters per rule
 * ({@code delay.rules.<name>.scheduled|cancelled|rejected}, gauge {@code .lag}).
 */
final class RulesPart {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RulesPart.class);

    private RulesPart() {}

    /** Wires the rules if any are configured; returns what the status page shows of them. */
    static RulesReport wire(
            DelayBridgeConfiguration config,
            Environment environment,
            Admin admin,
            DeadletterMeters deadletterMeters,
            Clock clock) {
        if (config.getRules().isEmpty()) {
            return RulesReport.NONE;
        }
        KafkaFactory kafka = config.getKafka();
        List<String> allowed = config.getIntake().getAllowedTargets();
        long maxDelay = config.getIntake().getMaxDelay().toMilliseconds();
        List<Rule> rules =
                config.getRules().build(kafka.getIntakeTopic(), kafka.getDeadletterTopic(), allowed, maxDelay);
        requireSources(admin, rules);
        warnOfUnpairedPartitions(admin, rules);
        MetricRegistry metrics = environment.metrics();
        List<RuleMeters> meters =
                rules.stream().map(r -> new RuleMeters(metrics, r.name())).toList();
        IntakeParser verifier = new IntakeParser(
                new TargetPolicy(kafka.getIntakeTopic(), kafka.getDeadletterTopic(), allowed), maxDelay);
        String applicationId = config.getRuleEngine().applicationId(kafka.getGroupId());
        RulesRunner runner = new RulesRunner(
                RuleTopology.build(
                        rules,
                        meters,
                        new RuleRecords(verifier),
                        kafka.getIntakeTopic(),
                        kafka.getDeadletterTopic(),
                        config.getRuleEngine().startsFromEarliest(),
                        deadletterMeters::mark),
                config.getRuleEngine().streamsProperties(kafka),
                config.getRuleEngine().closeTimeout());
        environment.lifecycle().manage(runner);
        RuleLag lag = new RuleLag(admin, applicationId, rules, clock, 2_000, 5_000);
        RulesReport report = new RulesReport(rules, meters, runner, lag);
        for (int i = 0; i < rules.size(); i++) {
            String name = rules.get(i).name();
            environment.healthChecks().register("rule-" + name, report.healthCheck(i));
            metrics.register(RuleMeters.PREFIX + name + ".lag", (Gauge<Long>) () -> lag.lag(name));
        }
        return report;
    }

    /**
     * A cancel stays behind its schedule when one task reads both sources: same partition count (and key). Otherwise
     * a cancel can reach the intake first and miss; a warning, since the ids may be keyed so that it cannot happen.
     */
    private static void warnOfUnpairedPartitions(Admin admin, List<Rule> rules) {
        List<String> topics =
                rules.stream().flatMap(r -> r.topics().stream()).distinct().toList();
        java.util.Map<String, Integer> partitions = new java.util.HashMap<>();
        try {
            admin.describeTopics(topics)
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((name, d) -> partitions.put(name, d.partitions().size()));
        } catch (Exception e) {
            return; // only a warning
        }
        for (Rule cancel : rules) {
            for (Rule schedule : rules) {
                if (!cancel.cancels()
                        || schedule.cancels()
                        || !cancel.cancel().canMatch(cancel.name(), schedule.id(), schedule.name())) {
                    continue;
                }
                for (String c : cancel.topics()) {
                    for (String t : schedule.topics()) {
                        if (!java.util.Objects.equals(partitions.get(c), partitions.get(t))) {
                            LOG.warn(
                                    "rules.{}: {} has {} partitions and {} (rule {}) has {}: a cancel and the schedule"
                                            + " it cancels may be read by different tasks, and a cancel written first misses."
                                            + " Give both topics the same number of partitions",
                                    cancel.name(),
                                    c,
                                    partitions.get(c),
                                    t,
                                    schedule.name(),
                                    partitions.get(t));
                        }
                    }
                }
            }
        }
    }

    /** A rule's source topic must exist: the rules read what producers write, they create no topics. */
    private static void requireSources(Admin admin, List<Rule> rules) {
        Set<String> existing;
        try {
            existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "delay rules cannot start: the topics of the Kafka cluster could not be" + " listed (" + e + ")",
                    e);
        }
        List<String> missing = rules.stream()
                .flatMap(r -> r.topics().stream()
                        .filter(t -> !existing.contains(t))
                        .map(t -> "rules." + r.name() + ".source: " + t))
                .toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("delay rules cannot start: source topics do not exist: " + missing
                    + ". Create them, or correct the name (rules read the topics producers write; they create none)");
        }
    }
}
