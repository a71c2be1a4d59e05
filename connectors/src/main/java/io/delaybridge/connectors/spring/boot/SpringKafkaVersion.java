package io.delaybridge.connectors.spring.boot;

import org.springframework.kafka.core.KafkaOperations;

/**
 * The Spring Kafka version on the class path, from its jar's manifest, and whether the retries support it: 3.3 (Spring
 * Boot 3.5) or later. An unknown version (a repackaged jar without a manifest) counts as supported.
 *
 * @param version e.g. {@code 3.3.16}, or null when unknown
 */
record SpringKafkaVersion(String version) {

    /** The oldest supported line, as {@code major.minor}. */
    static final String OLDEST = "3.3";

    static SpringKafkaVersion current() {
        return new SpringKafkaVersion(KafkaOperations.class.getPackage().getImplementationVersion());
    }

    boolean supported() {
        if (version == null) {
            return true;
        }
        String[] parts = version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major > 3 || (major == 3 && minor >= 3);
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
