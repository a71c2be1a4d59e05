package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.delaybridge.bridge.rules.Rule;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/** The {@code rules:} and {@code ruleEngine:} settings: read, and refused with the key, the value and the fix. */
class RulesConfigurationTest {

    private static final String ORDERS = """
            rules:
              - name: order-timeout
                source: orders.created
                target: orders.timeout
                delay: 30m
                id: "order-timeout:{key}"
              - name: order-paid
                source: orders.paid
                cancel: "order-timeout:{key}"
            """;

    private final YamlConfigurationFactory<DelayBridgeConfiguration> factory = new YamlConfigurationFactory<>(
            DelayBridgeConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    @TempDir
    Path dir;

    private DelayBridgeConfiguration read(String yaml) throws Exception {
        Path file = dir.resolve("config.yml");
        Files.writeString(file, yaml);
        return factory.build(file.toFile());
    }

    @Test
    void theOrdersExampleReadsAsTwoRules() throws Exception {
        DelayBridgeConfiguration config = read(ORDERS);
        List<Rule> rules = config.getRules().build("delay-intake", "delay-deadletter", List.of(), 86_400_000L);
        assertEquals(2, rules.size());
        assertEquals(
                "schedule to orders.timeout after 30m as order-timeout:{key}",
                rules.get(0).describe());
        assertEquals("cancel order-timeout:{key}", rules.get(1).describe());
        Properties streams = config.getRuleEngine().streamsProperties(config.getKafka());
        assertEquals("exactly_once_v2", streams.get("processing.guarantee"));
        assertEquals("delay-bridge-rules", streams.get("application.id"));
        assertTrue(read("kafka: {}").getRules().isEmpty(), "no rules by default");
    }

    @Test
    void theRulesStreamsConfigurationLogsNoWarning() throws Exception {
        DelayBridgeConfiguration config = read(ORDERS);
        Properties streams = config.getRuleEngine().streamsProperties(config.getKafka());
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(StreamsConfig.class);
        logger.addAppender(log);
        try {
            new StreamsConfig(streams);
        } finally {
            logger.detachAppender(log);
        }
        List<String> warnings = log.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
        assertEquals(List.of(), warnings, "Kafka Streams' configuration of the rules, at WARN and above");
    }

    static Stream<Arguments> badRules() {
        return Stream.of(
                Arguments.of(
                        "- {name: r, sourcePattern: 'orders.(', target: t, delay: 1s}",
                        "rules.r.sourcePattern is \"orders.(\", which is not a Java regular expression",
                        "write a full-match pattern"),
                Arguments.of(
                        "- {name: r, source: 'a b', target: t, delay: 1s}",
                        "rules.r.source is \"a b\"",
                        "legal Kafka topic name"),
                Arguments.of(
                        "- {name: r, target: t, delay: 1s}",
                        "rules.r.source and sourcePattern are missing",
                        "give exactly one"),
                Arguments.of(
                        "- {name: r, source: s, delay: 1s}",
                        "rules.r.target is missing",
                        "give the topic to deliver to"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 5y}",
                        "rules.r.delay \"5y\" is not a delay",
                        "unknown unit"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s, delayHeader: x}",
                        "rules.r.delay delay, delayHeader and delayField are",
                        "give exactly one"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s, delayFallback: 2s}",
                        "rules.r.delayFallback is \"2s\" with the fixed delay",
                        "remove it"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s, id: 'x:{nope}'}",
                        "rules.r.id has the unknown placeholder {nope}",
                        "placeholders are {key}"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s, partition: -1}",
                        "rules.r.partition is -1",
                        "use 0 or more"),
                Arguments.of(
                        "- {name: r, source: s, cancel: 'x:{offset}'}",
                        "rules.r.cancel is \"x:{offset}\"",
                        "can never match"),
                Arguments.of(
                        "- {name: r, source: s, cancel: 'x:{key}', target: t}",
                        "rules.r.cancel is set together with [target]",
                        "make two rules"),
                Arguments.of(
                        "- {name: 'a b', source: s, target: t, delay: 1s}",
                        "rules.a b.name is \"a b\"",
                        "e.g. order-timeout"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s}\n- {name: r, source: u, target: t, delay: 1s}",
                        "rules.r.name is \"r\", the name of an earlier rule",
                        "its own name"),
                Arguments.of(
                        "- {name: r, source: orders.created, target: t, delay: 1s, id: 'order-timeout:{key}'}\n"
                                + "- {name: c, source: orders.paid, cancel: 'order-expiry:{key}'}",
                        "rules.c.cancel is \"order-expiry:{key}\", which can never match the id of a message the"
                                + " rules schedule (r: order-timeout:{key})",
                        "set external: true"),
                Arguments.of(
                        "- {name: r, source: s, target: t, cron: '61 * * * *', zone: UTC}",
                        "rules.r.cron is \"61 * * * *\": \"61 * * * *\" is not a cron expression",
                        "minute hour day-of-month"),
                Arguments.of(
                        "- {name: r, source: s, target: t, cron: '0 9 * * *'}",
                        "rules.r.zone is missing",
                        "name the zone its wall times are in, e.g. Europe/Berlin"),
                Arguments.of(
                        "- {name: r, source: s, target: t, cron: '0 9 * * *', zone: Mars/Base}",
                        "rules.r.zone is \"Mars/Base\"",
                        "use a name such as Europe/Berlin"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 1d, zone: UTC}",
                        "rules.r.zone is \"UTC\"",
                        "drop zone, or use cron"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 500ms}",
                        "rules.r.every is \"500ms\"",
                        "shorter than 1s"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 1d, cron: '0 9 * * *', zone: UTC}",
                        "rules.r.cron and every are \"0 9 * * *\" and \"1d\"",
                        "give one"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 1d, end: soon}",
                        "rules.r.end is \"soon\"",
                        "e.g. 7d or PT12H"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 1d, count: 0}",
                        "rules.r.count is 0",
                        "give 1 or more"),
                Arguments.of(
                        "- {name: r, source: s, target: t, delay: 1s, count: 3}",
                        "rules.r.count is \"3\", which belongs to a series",
                        "add cron"),
                Arguments.of(
                        "- {name: r, source: s, target: t, every: 1d, missed: never}",
                        "rules.r.missed is \"never\": \"never\" is not one of one, all, skip",
                        "(default one)"),
                Arguments.of(
                        "- {name: r, source: s, cancel: 'x:{key}', every: 1d}",
                        "rules.r.cancel is set together with [every]",
                        "make two rules"),
                Arguments.of(
                        "- {name: p, sourcePattern: 'orders\\..*', target: t, delay: 1s}\n"
                                + "- {name: q, source: orders.created, target: t, delay: 1s}",
                        "rules.p.sourcePattern is \"orders\\..*\", which matches [orders.created]",
                        "Give both rules the same source"));
    }

    @ParameterizedTest
    @MethodSource("badRules")
    void aBadRuleStopsStartUpNamingTheKeyTheValueAndTheFix(String rules, String problem, String fix) {
        ConfigurationValidationException e = assertThrows(
                ConfigurationValidationException.class,
                () -> read("rules:\n" + rules.lines().map(l -> "  " + l + "\n").reduce("", String::concat)));
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(e.getMessage().contains(fix), e.getMessage());
    }

    @Test
    void aRuleWithCronOrEveryStartsASeries() throws Exception {
        List<Rule> rules = read("""
                        rules:
                          - name: remind
                            source: orders.created
                            target: orders.reminders
                            cron: "0 9 * * *"
                            zone: Europe/Berlin
                            end: 7d
                            id: "remind:{key}"
                          - name: poll
                            source: orders.created
                            target: orders.polls
                            every: 1h
                            count: 3
                            delay: 10m
                          - name: paid
                            source: orders.paid
                            cancel: "remind:{key}"
                        """).getRules().build("delay-intake", "delay-deadletter", List.of(), 86_400_000L);
        assertEquals(
                "schedule to orders.reminders cron 0 9 * * * Europe/Berlin for 7d as remind:{key}",
                rules.get(0).describe());
        assertEquals(
                "schedule to orders.polls every 1h, at most 3 times, from 10m on as {rule}:{topic}-{partition}-{offset}",
                rules.get(1).describe());
    }

    @Test
    void anExternalCancelRuleNeedNotMatchTheRulesIds() throws Exception {
        read("rules:\n  - {name: r, source: a, target: t, delay: 1s, id: 'x:{key}'}\n"
                + "  - {name: c, source: b, cancel: 'y:{key}', external: true}\n");
    }

    @Test
    void aForbiddenTargetOrASourceThatIsTheBridgesOwnTopicStopsTheRules() throws Exception {
        DelayBridgeConfiguration config = read("rules:\n"
                + "  - {name: pay, source: orders.created, target: payments, delay: 1s}\n"
                + "  - {name: loop, sourcePattern: 'delay-.*', target: orders.x, delay: 1s}\n"
                + "  - {name: far, source: orders.other, target: orders.x, delay: 400d}\n");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> config.getRules()
                        .build("delay-intake", "delay-deadletter", List.of("orders\\..*"), 365L * 86_400_000));
        String m = e.getMessage();
        assertTrue(
                m.contains("rules.pay.target: \"payments\" is not allowed: it matches none of the allowed"
                        + " patterns [orders\\..*]. Change the target, or allow it in intake.allowedTargets"),
                m);
        assertTrue(m.contains("rules.loop.sourcePattern: /delay-.*/ reads delay-intake, the bridge's own topic"), m);
        assertTrue(m.contains("rules.loop.sourcePattern: /delay-.*/ reads delay-deadletter"), m);
        assertTrue(m.contains("rules.far.delay: 400d is longer than intake.maxDelay"), m);
    }

    @Test
    void theEngineRefusesSettingsItOwns() {
        ConfigurationValidationException e = assertThrows(
                ConfigurationValidationException.class,
                () -> read("ruleEngine: {streams: {processing.guarantee: at_least_once}, startFrom: now}\n"));
        assertTrue(e.getMessage().contains("ruleEngine.streams sets [processing.guarantee]"), e.getMessage());
        assertTrue(e.getMessage().contains("ruleEngine.startFrom is \"now\""), e.getMessage());
    }
}
