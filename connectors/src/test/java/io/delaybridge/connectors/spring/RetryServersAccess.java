package io.delaybridge.connectors.spring;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** {@link RetryServers} for tests in other packages (the Spring Boot application's). */
public final class RetryServersAccess {

    private RetryServersAccess() {}

    public static String bootstrap() {
        return RetryServers.get().bootstrap();
    }

    public static String intake() {
        return RetryServers.INTAKE;
    }

    public static void createTopics(String... names) {
        RetryServers.get().createTopics(names);
    }

    public static String unique(String name) {
        return RetryServers.unique(name);
    }

    public static List<ConsumerRecord<String, String>> awaitRecords(String topic, Duration timeout) {
        return Receptions.awaitRecords(bootstrap(), topic, r -> true, timeout);
    }
}
