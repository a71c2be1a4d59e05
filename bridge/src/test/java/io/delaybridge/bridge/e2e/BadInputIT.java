package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.KafkaClient.bytes;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every kind of bad intake record yields exactly one deadletter record with the right reason, and the good record
 * produced right after it is still delivered, once and never early.
 */
@ExtendWith(RealServersExtension.class)
class BadInputIT {

    private static final int MAX_RECORD_BYTES = 64 * 1024;
    private static final long GOOD_DELAY = 300;

    private record Case(String name, ErrorCode code, byte[] value, List<Header> headers) {}

    private static Case bad(String name, ErrorCode code, String... pairs) {
        return new Case(name, code, bytes("payload of " + name), KafkaClient.headers(pairs));
    }

    @Test
    void eachBadRecordBecomesOneDeadletterRecordAndTheIntakeGoesOn(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String target = names.target("ok");
        String tooLong = "t-" + "x".repeat(248);
        List<Case> cases = new ArrayList<>(List.of(
                bad("no-target", ErrorCode.MISSING_TARGET, DelayHeaders.DELAY_MS, "1s"),
                bad("blank-target", ErrorCode.MISSING_TARGET, DelayHeaders.TARGET, " ", DelayHeaders.DELAY_MS, "1s"),
                bad(
                        "illegal-target",
                        ErrorCode.INVALID_TARGET,
                        DelayHeaders.TARGET,
                        "has space",
                        DelayHeaders.DELAY_MS,
                        "1s"),
                bad("long-target", ErrorCode.INVALID_TARGET, DelayHeaders.TARGET, tooLong, DelayHeaders.DELAY_MS, "1s"),
                bad(
                        "internal-target",
                        ErrorCode.TARGET_FORBIDDEN,
                        DelayHeaders.TARGET,
                        "__consumer_offsets",
                        DelayHeaders.DELAY_MS,
                        "1s"),
                bad(
                        "intake-target",
                        ErrorCode.TARGET_FORBIDDEN,
                        DelayHeaders.TARGET,
                        names.intake(),
                        DelayHeaders.DELAY_MS,
                        "1s"),
                bad(
                        "deadletter-target",
                        ErrorCode.TARGET_FORBIDDEN,
                        DelayHeaders.TARGET,
                        names.deadletter(),
                        DelayHeaders.DELAY_MS,
                        "1s"),
                bad(
                        "not-allowed-target",
                        ErrorCode.TARGET_FORBIDDEN,
                        DelayHeaders.TARGET,
                        "payments.capture",
                        DelayHeaders.DELAY_MS,
                        "1s"),
                bad("no-delay", ErrorCode.MISSING_DELAY, DelayHeaders.TARGET, target),
                bad(
                        "both-delays",
                        ErrorCode.CONFLICTING_DELAY,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.UNTIL,
                        "2030-01-01T00:00:00Z"),
                bad("word-delay", ErrorCode.INVALID_DELAY, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "abc"),
                bad(
                        "negative-delay",
                        ErrorCode.INVALID_DELAY,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "-5s"),
                bad("unknown-unit", ErrorCode.INVALID_DELAY, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "5y"),
                bad(
                        "overflow-delay",
                        ErrorCode.INVALID_DELAY,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "99999999999999999999999"),
                bad("empty-delay", ErrorCode.INVALID_DELAY, DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, ""),
                bad(
                        "too-long-delay",
                        ErrorCode.DELAY_TOO_LONG,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "400d"),
                bad(
                        "bad-until",
                        ErrorCode.INVALID_DELAY,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.UNTIL,
                        "next tuesday"),
                bad(
                        "far-until",
                        ErrorCode.DELAY_TOO_LONG,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.UNTIL,
                        "2100-01-01T00:00:00Z"),
                bad(
                        "word-partition",
                        ErrorCode.INVALID_PARTITION,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.PARTITION,
                        "x"),
                bad(
                        "negative-partition",
                        ErrorCode.INVALID_PARTITION,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.PARTITION,
                        "-1"),
                bad(
                        "blank-id",
                        ErrorCode.INVALID_ID,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.ID,
                        ""),
                bad(
                        "long-id",
                        ErrorCode.INVALID_ID,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.ID,
                        "i".repeat(600)),
                bad(
                        "twice-delay",
                        ErrorCode.DUPLICATE_HEADER,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        "1s",
                        DelayHeaders.DELAY_MS,
                        "2s"),
                bad("typo-header", ErrorCode.UNKNOWN_HEADER, DelayHeaders.TARGET, target, "delay-msec", "1000"),
                bad("blank-cancel", ErrorCode.INVALID_CANCEL, DelayHeaders.CANCEL, ""),
                bad(
                        "cancel-with-delay",
                        ErrorCode.INVALID_CANCEL,
                        DelayHeaders.CANCEL,
                        "some-id",
                        DelayHeaders.DELAY_MS,
                        "1s")));
        cases.add(new Case(
                "not-utf8",
                ErrorCode.INVALID_HEADER,
                bytes("x"),
                List.of(
                        new RecordHeader(DelayHeaders.TARGET, new byte[] {(byte) 0xC3, (byte) 0x28}),
                        new RecordHeader(DelayHeaders.DELAY_MS, bytes("1s")))));
        cases.add(new Case(
                "too-large",
                ErrorCode.PAYLOAD_TOO_LARGE,
                new byte[MAX_RECORD_BYTES + 1],
                KafkaClient.headers(DelayHeaders.TARGET, target, DelayHeaders.DELAY_MS, "1s")));
        assertTrue(cases.stream().map(Case::code).distinct().count() >= 14, "the cases cover the codes");

        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("intake.maxRecordSize", MAX_RECORD_BYTES + "B"))
                        .start()) {
            kafka.createTopics(1, target);
            KafkaClient.Collector deadletters = kafka.collect(names.deadletter());
            KafkaClient.Collector delivered = kafka.collect(target);

            List<Long> goodDue = new ArrayList<>();
            for (Case c : cases) {
                kafka.send(names.intake(), bytes("bad-" + c.name()), c.value(), null, c.headers());
                RecordMetadata good = kafka.send(
                        names.intake(),
                        "good-" + c.name(),
                        "fine",
                        null,
                        DelayHeaders.TARGET,
                        target,
                        DelayHeaders.DELAY_MS,
                        Long.toString(GOOD_DELAY));
                goodDue.add(good.timestamp() + GOOD_DELAY);
            }

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> deadletters.size() >= cases.size() && delivered.size() >= cases.size());

            Map<String, List<KafkaClient.Received>> byKey =
                    deadletters.received().stream().collect(Collectors.groupingBy(KafkaClient.Received::key));
            for (Case c : cases) {
                List<KafkaClient.Received> dead = byKey.get("bad-" + c.name());
                assertNotNull(dead, c.name() + " reached the deadletter topic");
                assertEquals(1, dead.size(), c.name() + " deadlettered exactly once");
                KafkaClient.Received record = dead.get(0);
                assertEquals(c.code().name(), record.header(DelayHeaders.ERROR), c.name());
                String message = record.header(DelayHeaders.ERROR_MESSAGE);
                assertTrue(message != null && !message.isBlank(), c.name() + " has a message");
                assertTrue(record.header(DelayHeaders.ORIGIN).startsWith(names.intake() + "/"), c.name());
                assertTrue(Arrays.equals(c.value(), record.record().value()), c.name() + " keeps its value");
                for (Header original : c.headers()) {
                    assertTrue(
                            Arrays.stream(record.record().headers().toArray())
                                    .anyMatch(h -> h.key().equals(original.key())
                                            && Arrays.equals(h.value(), original.value())),
                            c.name() + " keeps header " + original.key());
                }
            }
            assertEquals(cases.size(), deadletters.size(), "no extra deadletter records");

            for (int i = 0; i < cases.size(); i++) {
                String key = "good-" + cases.get(i).name();
                List<KafkaClient.Received> got = delivered.matching(r -> key.equals(r.key()));
                assertEquals(1, got.size(), key + " delivered once");
                long lateness = got.get(0).record().timestamp() - goodDue.get(i);
                // never early is exact; how late depends on the machine: the wait above bounds it
                assertTrue(lateness >= 0, key + " delivered " + -lateness + " ms early");
            }
            System.out.println("[BadInputIT] " + cases.size() + " bad records, "
                    + cases.stream().map(Case::code).distinct().count() + " distinct codes, each deadlettered once");
        }
    }
}
