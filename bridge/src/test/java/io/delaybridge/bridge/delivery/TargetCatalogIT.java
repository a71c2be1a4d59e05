package io.delaybridge.bridge.delivery;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.SteppableClock;
import io.delaybridge.testkit.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The catalog against a real broker: what it answers, and that an expired answer is refreshed without waiting. */
@ExtendWith(RealServersExtension.class)
class TargetCatalogIT {

    private static final long PRESENT_TTL = 60_000;
    private static final long MISSING_TTL = 5_000;

    @Test
    void anExpiredTopicIsAnsweredFromCacheAndRefreshedInTheBackground(TestServers servers) throws Exception {
        String topic = servers.unique("catalog-refresh");
        try (Admin admin = admin(servers)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // a created topic can still be unknown to a describe for a moment: the first lookup must find it
            awaitBrokerSees(admin, topic, 1);
            SteppableClock clock = SteppableClock.frozen();
            TargetCatalog catalog = new TargetCatalog(admin, clock, PRESENT_TTL, MISSING_TTL, 5_000);
            assertEquals(1, catalog.lookup(topic).partitions());

            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            awaitBrokerSees(admin, topic, 3);
            assertEquals(1, catalog.lookup(topic).partitions(), "still cached");
            clock.step(Duration.ofMillis(PRESENT_TTL + 1));
            // expired: the caller gets what was known at once, the broker is asked in the background
            assertEquals(
                    1, catalog.lookup(topic).partitions(), "the expired answer, not a lookup the caller waits for");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> catalog.lookup(topic).partitions() == 3);

            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            awaitBrokerSees(admin, topic, -1);
            clock.step(Duration.ofMillis(PRESENT_TTL + 1));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> catalog.lookup(topic).missing());
        }
    }

    @Test
    void aTopicNeverSeenOrMissingIsLookedUpWhileTheCallerWaits(TestServers servers) throws Exception {
        String topic = servers.unique("catalog-missing");
        try (Admin admin = admin(servers)) {
            SteppableClock clock = SteppableClock.frozen();
            TargetCatalog catalog = new TargetCatalog(admin, clock, PRESENT_TTL, MISSING_TTL, 5_000);
            assertTrue(catalog.lookup(topic).missing(), "never created");

            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            awaitBrokerSees(admin, topic, 2);
            assertTrue(catalog.lookup(topic).missing(), "the missing answer is cached for its own TTL");
            clock.step(Duration.ofMillis(MISSING_TTL + 1));
            // a missing topic that expired is looked up at once: a topic created meanwhile is delivered to at once
            assertEquals(2, catalog.lookup(topic).partitions());

            catalog.forget(topic);
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            awaitBrokerSees(admin, topic, 4);
            assertEquals(4, catalog.lookup(topic).partitions(), "forgotten: looked up again, while the caller waits");
        }
    }

    /** Until the broker's own metadata answers with that many partitions (-1: no such topic), as a lookup would. */
    private static void awaitBrokerSees(Admin admin, String topic, int partitions) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            try {
                return admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(10, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size()
                        == partitions;
            } catch (ExecutionException e) {
                return partitions == -1 && e.getCause() instanceof UnknownTopicOrPartitionException;
            }
        });
    }

    private static Admin admin(TestServers servers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
    }
}
