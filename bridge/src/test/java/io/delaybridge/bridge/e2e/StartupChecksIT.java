package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.FreePorts;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.RedisServer;
import io.delaybridge.testkit.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Start-up checks the topics and Redis side by side: every check still stops a bad start, and a topic problem is still
 * the one reported when Redis fails too.
 */
@ExtendWith(RealServersExtension.class)
class StartupChecksIT {

    @Test
    void aMissingIntakeIsReportedEvenWhenRedisIsUnreachableToo(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        TestBridge bridge = new TestBridge(
                names,
                servers.kafkaBootstrap(),
                "redis://127.0.0.1:" + FreePorts.pick(),
                TestBridge.set("kafka.createTopics", "false"));
        String why = failure(assertThrows(IllegalStateException.class, bridge::start));
        assertTrue(why.contains("kafka.intakeTopic: topic " + names.intake() + " does not exist"), why);
    }

    @Test
    void anEvictingRedisStillStopsTheStart(TestServers servers) throws Exception {
        TestNames names = TestNames.unique(servers);
        Path dir = Files.createTempDirectory("startup-checks-");
        try (RedisServer evicting = RedisServer.start(dir, 0, List.of("--maxmemory-policy", "allkeys-lru"))) {
            TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), evicting.uri());
            String why = failure(assertThrows(IllegalStateException.class, bridge::start));
            assertTrue(why.contains("maxmemory-policy allkeys-lru"), why);
        }
    }

    /** The messages of a failure and its causes. */
    private static String failure(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append('\n');
        }
        return sb.toString();
    }
}
