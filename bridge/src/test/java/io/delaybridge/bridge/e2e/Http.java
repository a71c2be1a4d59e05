package io.delaybridge.bridge.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A small HTTP client for the bridge's two ports, with the credentials of the API tests. */
final class Http {

    static final String TOKEN = "test-token-0123456789abcdef";
    static final String USER = "alice";
    static final String PASSWORD = "alice-password-123";
    static final String BEARER = "Bearer " + TOKEN;
    static final String BASIC =
            "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** An answer: status, body text, the body as JSON (null if it is not JSON). */
    record Reply(int status, String body, JsonNode json) {
        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private Http() {}

    static Reply get(int port, String path) {
        return call("GET", port, path, null, null);
    }

    static Reply get(int port, String path, String auth) {
        return call("GET", port, path, null, auth);
    }

    static Reply call(String method, int port, String path, String jsonBody, String auth) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .method(
                        method,
                        jsonBody == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (jsonBody != null) {
            request.header("Content-Type", "application/json");
        }
        if (auth != null) {
            request.header("Authorization", auth);
        }
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = JSON.readTree(response.body());
            } catch (Exception notJson) {
                // plain text (tasks, Prometheus)
            }
            return new Reply(response.statusCode(), response.body(), json);
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        }
    }
}
