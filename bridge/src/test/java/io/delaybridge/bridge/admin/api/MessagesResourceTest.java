package io.delaybridge.bridge.admin.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Request validation of the message API, without servers: every request here is refused before the store is touched
 * (the store and the message admin fail the test if called). Behaviour against Redis: OperationsApiIT.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class MessagesResourceTest {

    private static <T> T untouchable(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getName().equals("shardCount")) {
                return 4;
            }
            throw new AssertionError("a bad request reached the store: " + method.getName());
        }));
    }

    private static final ApiSettings SETTINGS = new io.delaybridge.bridge.config.ApiFactory().build();

    private static final ResourceExtension RESOURCES = ResourceExtension.builder()
            .addResource(new MessagesResource(
                    untouchable(DelayStore.class),
                    untouchable(MessageAdmin.class),
                    null, // far records: a bad request never looks for one
                    SETTINGS,
                    365L * 24 * 3600 * 1000,
                    new MetricRegistry()))
            .build();

    private Response post(String path, String json) {
        return RESOURCES.target(path).request().post(Entity.entity(json, MediaType.APPLICATION_JSON_TYPE));
    }

    private static void assertBadField(Response response, String field) {
        assertEquals(400, response.getStatus());
        @SuppressWarnings("unchecked")
        Map<String, Object> body = response.readEntity(Map.class);
        assertEquals(field, body.get("field"), body.toString());
        assertFalse(body.get("message").toString().contains("Exception"), body.toString());
    }

    @Test
    void rescheduleNeedsExactlyOneValidDueTimeOrDelay() {
        assertBadField(post("/messages/m1/reschedule", "{}"), "dueAt");
        assertBadField(post("/messages/m1/reschedule", "{\"dueAt\":\"1\",\"delay\":\"1s\"}"), "delay");
        for (String delay : Set.of("soon", "-1s", "1x", "")) {
            Response r = post("/messages/m1/reschedule", "{\"delay\":\"" + delay + "\"}");
            assertBadField(r, delay.isEmpty() ? "dueAt" : "delay");
        }
        assertBadField(post("/messages/m1/reschedule", "{\"dueAt\":\"tomorrow\"}"), "dueAt");
    }

    @Test
    void bulkCancelNeedsATargetAndABoundedLimit() {
        assertBadField(post("/messages/cancel", "{\"limit\":1}"), "target");
        assertBadField(post("/messages/cancel", "{\"target\":\"t\"}"), "limit");
        assertBadField(post("/messages/cancel", "{\"target\":\"t\",\"limit\":0}"), "limit");
        assertBadField(
                post("/messages/cancel", "{\"target\":\"t\",\"limit\":" + (SETTINGS.maxBulkCancel() + 1) + "}"),
                "limit");
        assertBadField(post("/messages/cancel", "{\"target\":\"t\",\"limit\":1,\"dueFrom\":\"x\"}"), "dueFrom");
    }

    @Test
    void idsAreBounded() {
        assertBadField(
                RESOURCES
                        .target("/messages/" + "i".repeat(MessagesResource.MAX_ID_LENGTH + 1))
                        .request()
                        .get(),
                "id");
    }
}
