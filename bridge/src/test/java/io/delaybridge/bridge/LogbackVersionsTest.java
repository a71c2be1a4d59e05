package io.delaybridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The logback artifacts on the bridge's class path converge: logback-access (Dropwizard's request log) checks at
 * start-up that logback-core is the version it was built against and logs a WARN at every start otherwise, and
 * logback-classic checks the same of its core. The root pom pins logback-core and logback-classic to the version
 * logback-access expects; this fails when a Dropwizard upgrade moves one of them.
 */
class LogbackVersionsTest {

    @Test
    void logbackAccessAndClassicRunOnTheCoreTheyExpect() throws IOException {
        String core = property("ch/qos/logback/core/logback-core-version.properties", "logback-core-version");
        assertEquals(
                property("ch/qos/logback/access/common/logback-access-common-dependencies.properties", "logback-core"),
                core,
                "logback-core as logback-access expects it; set logback.version in the root pom to this");
        assertEquals(
                property("ch/qos/logback/classic/logback-classic-version.properties", "logback-classic-version"),
                core,
                "logback-classic of the same version as logback-core");
    }

    private static String property(String resource, String name) throws IOException {
        try (InputStream in = LogbackVersionsTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, "not on the class path: " + resource);
            Properties properties = new Properties();
            properties.load(in);
            assertNotNull(properties.getProperty(name), name + " in " + resource);
            return properties.getProperty(name);
        }
    }
}
