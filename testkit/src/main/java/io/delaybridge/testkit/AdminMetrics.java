package io.delaybridge.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Readings of a bridge's admin port (a child JVM's, for the benchmark and the fault campaign): the body of a
 * {@code GET}, and a meter's count out of Dropwizard's {@code /metrics} JSON
 * ({@code "meters": {"delay.intake.read": {"count": 42, "m15_rate": ...}}}).
 */
public final class AdminMetrics {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private AdminMetrics() {}

    /** The body of {@code GET http://127.0.0.1:<adminPort><path>} if it answers 200 within {@code timeout}. */
    public static Optional<String> get(int adminPort, String path, Duration timeout) {
        try {
            HttpResponse<String> response = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                            .timeout(timeout)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * The {@code count} of the meter, counter or timer {@code name} in a {@code /metrics} body; empty if the body
     * has no such metric (a bridge that does not have it).
     */
    public static OptionalLong count(String metricsJson, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\\{\\s*\"count\"\\s*:\\s*(\\d+)")
                .matcher(metricsJson);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** The {@code value} of the gauge {@code name} in a {@code /metrics} body, if it has that gauge with a number. */
    public static OptionalDouble gauge(String metricsJson, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\\{\\s*\"value\"\\s*:\\s*([-0-9.Ee]+)")
                .matcher(metricsJson);
        return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    }
}
