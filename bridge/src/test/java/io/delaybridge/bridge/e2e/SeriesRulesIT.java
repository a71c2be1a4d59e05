package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.rules.RuleRecords;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.dropwizard.testing.DropwizardTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Delay rules that start series, in a running bridge on the real broker and Redis: an order starts reminders every
 * second, three at most; a sign-up starts reminders every second until a payment's cancel rule ends them; a tick
 * starts a cron series that ends two seconds after its source record. "No further occurrence" is checked against a
 * one-shot marker due after the instant the occurrence would have had, never by a sleep.
 */
@ExtendWith(RealServersExtension.class)
@Execution(ExecutionMode.CONCURRENT) // its bridges run in this JVM beside other classes
@ResourceLock(value = SharedJvm.LOGGING_AND_THREADS, mode = ResourceAccessMode.READ)
class SeriesRulesIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void rulesStartSeriesThatCountEndAndCancelEndTheirWay(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        String orders = names.target("orders");
        String signups = names.target("signups");
        String paid = names.target("paid");
        String ticks = names.target("ticks");
        String reminders = names.target("reminders");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap())) {
            kafka.createTopics(2, orders, signups, paid, ticks, reminders);
            Path config = RulesConfig.write(dir, names, servers.kafkaBootstrap(), servers.redisUri(), """
                    rules:
                      - name: remind
                        source: %s
                        target: %s
                        every: 1s
                        count: 3
                        missed: all
                        id: "remind:{key}"
                      - name: nag
                        source: %s
                        target: %s
                        every: 1s
                        id: "nag:{key}"
                      - name: paid
                        source: %s
                        cancel: "nag:{key}"
                      - name: tick
                        source: %s
                        target: %s
                        cron: "* * * * * *"
                        zone: UTC
                        end: 2s
                        missed: all
                        id: "tick:{key}"
                    """.formatted(
                            orders, reminders, signups, reminders, paid, ticks, reminders));
            DropwizardTestSupport<DelayBridgeConfiguration> bridge = TestBridge.support(config.toString());
            try {
                bridge.before();
                KafkaClient.Collector got = kafka.collect(reminders);
                Markers markers = new Markers(kafka, names.intake(), reminders, got);

                long ordered =
                        kafka.send(orders, "order-1", "{\"order\":1}", null).timestamp();
                await().atMost(WAIT)
                        .until(() -> occurrences(got, "remind:order-1").size() >= 3);
                markers.awaitAfter(ordered + 4_000); // where a fourth would fall
                List<KafkaClient.Received> reminded = occurrences(got, "remind:order-1");
                assertEquals(3, reminded.size(), "count: 3 ends the series");
                for (int n = 1; n <= 3; n++) {
                    KafkaClient.Received r = reminded.get(n - 1);
                    assertEquals(Integer.toString(n), r.header(DelayHeaders.OCCURRENCE));
                    assertEquals(
                            Long.toString(ordered + n * 1000L),
                            r.header(DelayHeaders.DUE_AT),
                            "every second from the order record");
                    assertEquals("remind", r.header(RuleRecords.RULE_HEADER));
                    assertEquals("{\"order\":1}", r.value());
                }

                kafka.send(signups, "user-1", "{}", null);
                await().atMost(WAIT).until(() -> occurrences(got, "nag:user-1").size() >= 2);
                kafka.send(paid, "user-1", "{}", null);
                int app = bridge.getLocalPort();
                await().atMost(WAIT).until(() -> get(app, "/series/nag:user-1").status() == 404);
                // a send under way when the cancel came may still arrive; nothing after it
                markers.awaitAfter(System.currentTimeMillis() + 1_500);
                int nagged = occurrences(got, "nag:user-1").size();
                markers.awaitAfter(System.currentTimeMillis() + 2_500);
                assertEquals(nagged, occurrences(got, "nag:user-1").size(), "the payment ended the series");

                long ticked = kafka.send(ticks, "t-1", "t", null).timestamp();
                long first = (ticked + 999) / 1000 * 1000; // the first whole second at or after the source record
                long expected = (ticked + 2_000 - first) / 1000 + 1; // whole seconds up to the end, inclusive
                await().atMost(WAIT).until(() -> occurrences(got, "tick:t-1").size() >= expected);
                markers.awaitAfter(ticked + 3_500);
                List<KafkaClient.Received> tocks = occurrences(got, "tick:t-1");
                assertEquals(expected, tocks.size(), "end: 2s after the source record " + ticked);
                for (KafkaClient.Received r : tocks) {
                    assertTrue(Long.parseLong(r.header(DelayHeaders.DUE_AT)) <= ticked + 2_000, r.toString());
                }
            } finally {
                bridge.after();
            }
        }
    }

    private static List<KafkaClient.Received> occurrences(KafkaClient.Collector got, String id) {
        return got.matching(r -> id.equals(r.header(DelayHeaders.ID)));
    }

    /** One-shot markers sent straight to the intake, to wait until an instant has passed through the pump. */
    private record Markers(KafkaClient kafka, String intake, String target, KafkaClient.Collector got) {
        void awaitAfter(long dueAt) {
            String key = "marker-" + System.nanoTime();
            kafka.send(intake, key, "m", null, DelayHeaders.TARGET, target, DelayHeaders.UNTIL, Long.toString(dueAt));
            await().atMost(WAIT)
                    .until(() -> !got.matching(r -> key.equals(r.key())).isEmpty());
        }
    }
}
