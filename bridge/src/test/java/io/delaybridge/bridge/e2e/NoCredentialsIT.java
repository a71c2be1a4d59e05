package io.delaybridge.bridge.e2e;

import static io.delaybridge.bridge.e2e.Http.call;
import static io.delaybridge.bridge.e2e.Http.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** No default credentials: without configured ones, mutating routes are disabled; with authenticateReads, reads too. */
@ExtendWith(RealServersExtension.class)
class NoCredentialsIT {

    @Test
    void withoutCredentialsMutatingRoutesAreDisabledWithAClearMessage(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        try (TestBridge bridge = new TestBridge(names, servers.kafkaBootstrap(), servers.redisUri()).start()) {
            int app = bridge.support().getLocalPort();
            for (Http.Reply reply : new Http.Reply[] {
                call("DELETE", app, "/messages/x", null, Http.BEARER),
                call("POST", app, "/messages/x/fire-now", null, null),
                call("POST", app, "/deadletter/replay", "{\"limit\":1}", Http.BEARER),
                call("POST", bridge.adminPort(), "/tasks/pause-pump", null, Http.BEARER)
            }) {
                assertEquals(403, reply.status(), reply.toString());
                assertTrue(
                        reply.json().get("message").asText().contains("no credentials are configured"),
                        reply.toString());
            }
            assertEquals(200, get(app, "/shards").status(), "reads stay open");
            assertEquals(
                    0,
                    get(bridge.adminPort(), "/metrics")
                            .json()
                            .get("gauges")
                            .get("delay.pump.paused")
                            .get("value")
                            .asInt(),
                    "the refused pause changed nothing");
        }
    }

    @Test
    void authenticateReadsProtectsReadsOnBothPorts(TestServers servers) {
        TestNames names = TestNames.unique(servers);
        try (TestBridge bridge = new TestBridge(
                        names,
                        servers.kafkaBootstrap(),
                        servers.redisUri(),
                        TestBridge.set("api.token", Http.TOKEN),
                        TestBridge.set("api.authenticateReads", "true"))
                .start()) {
            int app = bridge.support().getLocalPort();
            assertEquals(401, get(app, "/shards").status());
            assertEquals(401, get(app, "/messages/x").status());
            assertEquals(401, get(bridge.adminPort(), "/metrics").status());
            assertEquals(401, get(bridge.adminPort(), "/prometheus").status());
            assertEquals(200, get(app, "/shards", Http.BEARER).status());
            assertEquals(
                    200, get(bridge.adminPort(), "/prometheus", Http.BEARER).status());
        }
    }
}
