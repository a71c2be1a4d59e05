package io.delaybridge.bridge.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A target that does not exist ends in the deadletter topic after the configured attempts; others keep flowing. */
@ExtendWith(RealServersExtension.class)
class DeliveryFailureIT {

    @Test
    void aMissingTargetIsDeadletteredAfterTheLastAttemptWhileOtherTargetsFlow(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        String missing = names.target("nowhere");
        String present = names.target("here");
        try (KafkaClient kafka = new KafkaClient(servers.kafkaBootstrap());
                TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start()) {
            kafka.createTopics(1, present);
            KafkaClient.Collector deadletters = kafka.collect(names.deadletter());
            KafkaClient.Collector delivered = kafka.collect(present);

            long sentAt = System.currentTimeMillis();
            kafka.send(names.intake(), "lost-order", "to nowhere", null,
                    DelayHeaders.TARGET, missing, DelayHeaders.DELAY_MS, "0", "trace-id", "abc");
            for (int i = 0; i < 20; i++) {
                kafka.send(names.intake(), "flowing-" + i, "v" + i, null,
                        DelayHeaders.TARGET, present, DelayHeaders.DELAY_MS, Integer.toString(i * 100));
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> deadletters.size() >= 1 && delivered.size() >= 20);
            // the configured 3 attempts with 100 ms, then 200 ms backoff: not before ~300 ms
            KafkaClient.Received dead = deadletters.received().get(0);
            assertEquals("lost-order", dead.key());
            assertEquals("to nowhere", dead.value());
            assertEquals(ErrorCode.DELIVERY_FAILED.name(), dead.header(DelayHeaders.ERROR));
            assertEquals("3", dead.header(DelayHeaders.ATTEMPT), "deadlettered after the last of 3 attempts");
            assertTrue(dead.header(DelayHeaders.ERROR_MESSAGE).contains(missing), dead.header(
                    DelayHeaders.ERROR_MESSAGE));
            assertEquals(missing, dead.header(DelayHeaders.TARGET), "replayable: the target is kept");
            assertEquals("abc", dead.header("trace-id"), "user headers kept");
            assertTrue(dead.receivedAt() - sentAt >= 300, "not before the retries were spent");

            List<KafkaClient.Received> flowing = delivered.received();
            assertEquals(20, flowing.size());
            for (KafkaClient.Received got : flowing) {
                assertEquals("1", got.header(DelayHeaders.ATTEMPT), got.key() + " went through at once");
            }
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> deadletters.size() == 1);
        }
    }
}
