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

    public static void createTopics(int partitions, String... names) {
        RetryServers.get().createTopics(partitions, names);
    }

    public static java.util.Set<String> topics() {
        return RetryServers.get().topics();
    }

    /** Every record of {@code topic} now, all partitions. */
    public static List<ConsumerRecord<String, String>> readAll(String topic) {
        return Receptions.readAll(bootstrap(), topic, r -> true);
    }

    public static int partitions(String topic) {
        return RetryServers.get().partitions(topic);
    }

    public static String unique(String name) {
        return RetryServers.unique(name);
    }

    public static List<ConsumerRecord<String, String>> awaitRecords(String topic, Duration timeout) {
        return Receptions.awaitRecords(bootstrap(), topic, r -> true, timeout);
    }
}
