package io.delaybridge.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration the campaign writes for its bridges is valid YAML with every section where the bridge reads it. */
class BridgeConfigTest {

    @TempDir
    Path dir;

    private JsonNode written(CampaignOptions options) throws Exception {
        return written(options, 1);
    }

    private JsonNode written(CampaignOptions options, int replicationFactor) throws Exception {
        Path file = BridgeConfig.write(options, dir, replicationFactor);
        return new YAMLMapper().readTree(file.toFile());
    }

    @Test
    void theHotWindowGoesIntoTheIntakeSection() throws Exception {
        JsonNode yaml = written(CampaignOptions.parse(new String[] {"--hot-window", "2s", "--lease", "4s"}));
        assertEquals("2s", yaml.at("/intake/hotWindow").asText());
        assertEquals(
                Campaign.EXPRESS_BUFFER_RECORDS,
                yaml.at("/intake/expressBufferRecords").asInt());
        assertEquals("4000ms", yaml.at("/pump/lease").asText());
        assertEquals(Campaign.MAX_IN_FLIGHT, yaml.at("/pump/maxInFlight").asInt());
    }

    @Test
    void withoutAHotWindowTheShippedDefaultStays() throws Exception {
        JsonNode yaml = written(CampaignOptions.defaults());
        assertTrue(yaml.at("/intake/hotWindow").isMissingNode(), yaml.toString());
        assertEquals("10000ms", yaml.at("/pump/lease").asText());
        assertEquals("campaign-bridges", yaml.at("/kafka/groupId").asText());
        assertEquals(1, yaml.at("/kafka/replicationFactor").asInt());
    }

    @Test
    void onAClusterTheBridgesTopicsGetAReplicaOnEveryNode() throws Exception {
        JsonNode yaml = written(CampaignOptions.parse(new String[] {"--brokers", "3"}), 3);
        assertEquals(3, yaml.at("/kafka/replicationFactor").asInt());
    }
}
