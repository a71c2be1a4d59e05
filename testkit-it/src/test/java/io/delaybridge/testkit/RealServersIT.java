package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServersExtension.class)
class RealServersIT {

    @BeforeAll
    static void firstUse() {
        long t0 = System.nanoTime();
        String kafka = RealServers.kafkaBootstrap();
        String redis = RealServers.redisUri();
        System.out.printf(
                "Shared servers (Kafka %s, Redis %s) ready in %d ms%n",
                kafka, redis, (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void theSharedKafkaBrokerAcceptsTopics(TestServers servers) throws Exception {
        String topic = servers.unique("shared");
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", servers.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Set<String> names = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            assertTrue(names.contains(topic), names.toString());
        }
    }

    @Test
    void theSharedRedisAnswers(TestServers servers) throws Exception {
        URI uri = URI.create(servers.redisUri());
        assertEquals("redis", uri.getScheme());
        String key = servers.unique("testkit") + ":k";
        try (Resp resp = Resp.connect(uri.getPort(), 2000)) {
            assertEquals("OK", resp.call("SET", key, "v"));
            assertEquals("v", resp.call("GET", key));
        }
    }

    @Test
    void everyTestSeesTheSameServers(TestServers servers) {
        assertEquals(RealServers.kafkaBootstrap(), servers.kafkaBootstrap());
        assertEquals(RealServers.redisUri(), servers.redisUri());
        assertNotEquals(servers.unique("a"), servers.unique("a"));
    }
}
