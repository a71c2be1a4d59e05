package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How the delay rules run: one Kafka Streams application, exactly-once (v2) from the source topics to the intake
 * and deadletter topics. Only used when {@code rules:} holds a rule.
 *
 * <p>Settings under {@code ruleEngine:} (docs/configuration.md).
 */
@SettingsCheck
public class RuleEngineFactory implements SettingsCheck.Checked {

    /** Properties whose change would break the rules' guarantee or identity; set by the bridge. */
    private static final Set<String> OWNED = Set.of(
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
            StreamsConfig.APPLICATION_ID_CONFIG,
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);

    @Pattern(regexp = "[a-zA-Z0-9._-]{1,200}", message = "is \"${validatedValue}\": use 1 to 200 of a-z A-Z 0-9 . _ -")
    @Setting(
            value = "The Kafka Streams application id (its consumer group and transactional ids); every instance "
                    + "with the same id shares the rules' work.",
            defaultMeans = "`<kafka.groupId>-rules`")
    private String applicationId;

    @NotNull
    @Pattern(
            regexp = "earliest|latest",
            message = "is \"${validatedValue}\": use latest (records from now on) or" + " earliest (the whole topic)")
    @Setting("Where a source without committed offsets starts: `latest` (records from now on) or `earliest` (the "
            + "whole topic; those past due are delivered at once).")
    private String startFrom = "latest";

    @Setting(value = "Stream threads of this instance.", min = "1", max = "64")
    private int threads = 1;

    @NotNull
    @Setting(
            value = "The transaction commit interval: the intake sees a rule's records at the commit, so this adds "
                    + "to the lateness of very short delays.",
            min = "10ms",
            max = "60s")
    private Duration commitInterval = Duration.milliseconds(100);

    @NotNull
    @Setting("How long a stop waits for the stream threads to commit and close.")
    private Duration closeTimeout = Duration.seconds(30);

    @Setting(
            value = "Kafka Streams' state directory; stateless rules keep only a lock file there.",
            defaultMeans = "`<java.io.tmpdir>/delay-bridge-rules`")
    private String stateDir;

    @NotNull
    @Setting("Extra Kafka Streams properties; those the bridge sets itself are refused, `kafka.common` applies too."
            + " `processing.exception.handler.global.enabled` is `true` unless set here (the rules keep no global"
            + " state; Kafka's default, `false` until 5.0, logs a WARN at every start).")
    private Map<String, String> streams = new LinkedHashMap<>();

    @Override
    public void check(SettingsCheck.Problems problems) {
        List<String> owned =
                streams.keySet().stream().filter(OWNED::contains).sorted().toList();
        if (!owned.isEmpty()) {
            problems.add(
                    "streams",
                    "sets " + owned + ", which the bridge sets itself (exactly_once_v2 keeps every"
                            + " rule's record in the intake once; the id is ruleEngine.applicationId, the brokers"
                            + " kafka.bootstrapServers). Remove them from ruleEngine.streams");
        }
    }

    /** The application id: {@code applicationId}, or {@code <groupId>-rules}. */
    public String applicationId(String groupId) {
        return applicationId != null ? applicationId : groupId + "-rules";
    }

    public boolean startsFromEarliest() {
        return "earliest".equals(startFrom);
    }

    public java.time.Duration closeTimeout() {
        return closeTimeout.toJavaDuration();
    }

    /** Kafka Streams properties: the broker and common client settings of {@code kafka:}, then these. */
    public Properties streamsProperties(KafkaFactory kafka) {
        Properties p = new Properties();
        p.putAll(kafka.getCommon());
        p.put(
                StreamsConfig.STATE_DIR_CONFIG,
                stateDir != null
                        ? stateDir
                        : Path.of(System.getProperty("java.io.tmpdir"), "delay-bridge-rules")
                                .toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(threads));
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitInterval.toMilliseconds()));
        p.put(StreamsConfig.CLIENT_ID_CONFIG, applicationId(kafka.getGroupId()));
        // The rules keep no global state, so this changes nothing they do; left false (Kafka's default until 5.0)
        // every start logs a WARN recommending it. A `streams:` setting still overrides it.
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
        p.putAll(streams);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId(kafka.getGroupId()));
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return p;
    }

    @JsonProperty
    public String getApplicationId() {
        return applicationId;
    }

    @JsonProperty
    public void setApplicationId(String applicationId) {
        this.applicationId = applicationId;
    }

    @JsonProperty
    public String getStartFrom() {
        return startFrom;
    }

    @JsonProperty
    public void setStartFrom(String startFrom) {
        this.startFrom = startFrom;
    }

    @JsonProperty
    public int getThreads() {
        return threads;
    }

    @JsonProperty
    public void setThreads(int threads) {
        this.threads = threads;
    }

    @JsonProperty
    public Duration getCommitInterval() {
        return commitInterval;
    }

    @JsonProperty
    public void setCommitInterval(Duration commitInterval) {
        this.commitInterval = commitInterval;
    }

    @JsonProperty
    public Duration getCloseTimeout() {
        return closeTimeout;
    }

    @JsonProperty
    public void setCloseTimeout(Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
    }

    @JsonProperty
    public String getStateDir() {
        return stateDir;
    }

    @JsonProperty
    public void setStateDir(String stateDir) {
        this.stateDir = stateDir;
    }

    @JsonProperty
    public Map<String, String> getStreams() {
        return streams;
    }

    @JsonProperty
    public void setStreams(Map<String, String> streams) {
        this.streams = streams;
    }
}
