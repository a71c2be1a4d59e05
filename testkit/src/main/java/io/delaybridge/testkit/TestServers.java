package io.delaybridge.testkit;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The servers a test talks to, as resolved by {@link RealServersExtension}. The servers are shared by all tests
 * of the JVM: name topics, consumer groups and Redis key prefixes with {@link #unique(String)}.
 *
 * @param kafkaBootstrap {@code bootstrap.servers} of a Kafka broker
 * @param redisUri {@code redis://host:port} of a Redis server
 */
public record TestServers(String kafkaBootstrap, String redisUri) {

    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    /**
     * {@code prefix} + "-" + 8 random lower-case letters and digits, e.g. {@code orders-k3x9q2ma}; valid as a
     * Kafka topic name, a consumer group id and in a Redis key.
     */
    public String unique(String prefix) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder sb = new StringBuilder(prefix.length() + 9).append(prefix).append('-');
        for (int i = 0; i < 8; i++) {
            sb.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return sb.toString();
    }
}
