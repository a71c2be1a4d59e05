package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target topic that does not exist follows the broker: where the broker creates topics on first use, the first
 * delivery creates it, on time; where it does not, the message waits {@code pump.missingTopicWait} for it and then
 * goes to the deadletter topic, while other targets keep flowing.
 */
@ExtendWith(RealServersExtension.class)
class DeliveryFailureIT {

    private static final long WAIT_MILLIS = 1_000;

    @Test
    void aMissingTargetIsDeadletteredAfterTheConfiguredWaitWhileOtherTargetsFlow(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String missing = names.target("nowhere");
        String present = names.target("here");
        // the shared test broker runs auto.create.topics.enable=false
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(
                                names,
                                servers.kafkaBootstrap(),
                                servers.redisUri(),
                                TestBridge.set("pump.missingTopicWait", WAIT_MILLIS + "ms"))
                        .start()) {
            kafka.createTopics(1, present);
            KafkaClient.Collector deadletters = kafka.collect(names.deadletter());
            KafkaClient.Collector delivered = kafka.collect(present);

            long sentAt = System.currentTimeMillis();
            kafka.send(
                    names.intake(),
                    "lost-order",
                    "to nowhere",
                    null,
                    DelayHeaders.TARGET,
                    missing,
                    DelayHeaders.DELAY_MS,
                    "0",
                    "trace-id",
                    "abc");
            for (int i = 0; i < 20; i++) {
                kafka.send(
                        names.intake(),
                        "flowing-" + i,
                        "v" + i,
                        null,
                        DelayHeaders.TARGET,
                        present,
                        DelayHeaders.DELAY_MS,
                        Integer.toString(i * 100));
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> deadletters.size() >= 1 && delivered.size() >= 20);
            KafkaClient.Received dead = deadletters.received().get(0);
            long after = dead.receivedAt() - sentAt;
            System.out.printf(
                    "[missing-target] deadlettered %d ms after it was sent (wait %d ms)%n", after, WAIT_MILLIS);
            assertEquals("lost-order", dead.key());
            assertEquals("to nowhere", dead.value());
            assertEquals(ErrorCode.DELIVERY_FAILED.name(), dead.header(DelayHeaders.ERROR));
            String reason = dead.header(DelayHeaders.ERROR_MESSAGE);
            assertTrue(reason.contains("target topic " + missing + " does not exist"), reason);
            assertEquals("2", dead.header(DelayHeaders.ATTEMPT), "the first attempt, then one after the wait");
            assertEquals(missing, dead.header(DelayHeaders.TARGET), "replayable: the target is kept");
            assertEquals("abc", dead.header("trace-id"), "user headers kept");
            assertTrue(after >= WAIT_MILLIS, "not before the wait: " + after + " ms");
            assertTrue(after < WAIT_MILLIS + 8_000, "within the wait, not the retry schedule: " + after + " ms");

            List<KafkaClient.Received> flowing = delivered.received();
            assertEquals(20, flowing.size());
            for (KafkaClient.Received got : flowing) {
                assertEquals("1", got.header(DelayHeaders.ATTEMPT), got.key() + " went through at once");
            }
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> deadletters.size() == 1);
        }
    }

    @Test
    void aBrokerThatCreatesTopicsOnFirstUseGetsTheTargetCreatedAndDeliveredByTheFirstAttempt(
            TestServers servers, @TempDir Path dir) {
        TestNames names = TestNames.unique(servers);
        String created = names.target("auto");
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"), KafkaBroker.Option.AUTO_CREATE_TOPICS);
                KafkaClient kafka = new KafkaClient(broker.bootstrapServers());
                TestBridge bridge = new TestBridge(names, broker.bootstrapServers(), servers.redisUri()).start()) {
            KafkaClient.Collector deadletters = kafka.collect(names.deadletter());
            long due = kafka.send(
                                    names.intake(),
                                    "order-1",
                                    "created on first use",
                                    null,
                                    DelayHeaders.TARGET,
                                    created,
                                    DelayHeaders.DELAY_MS,
                                    "500")
                            .timestamp()
                    + 500;

            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> kafka.topicConfig(created, "cleanup.policy") != null);
            try (KafkaClient reader = new KafkaClient(broker.bootstrapServers())) {
                KafkaClient.Collector delivered = reader.collect(created);
                await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= 1);
                KafkaClient.Received got = delivered.received().get(0);
                long late = got.record().timestamp() - due;
                System.out.printf(
                        "[missing-target] a topic the broker creates on first use: delivered %d ms after "
                                + "its due time%n",
                        late);
                assertEquals("order-1", got.key());
                assertEquals("1", got.header(DelayHeaders.ATTEMPT), "delivered by its first attempt");
                assertTrue(late >= 0, "never early: " + -late + " ms early");
            }
            assertEquals(0, deadletters.size(), "nothing deadlettered");
        }
    }
}
