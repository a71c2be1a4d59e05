package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How the delay rules run: one Kafka Streams application, exactly-once (v2) from the source topics to the intake
 * and deadletter topics. Only used when {@code rules:} holds a rule.
 *
 * <table>
 *   <caption>Settings under {@code ruleEngine:}</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>applicationId</td><td>{@code <kafka.groupId>-rules}</td><td>the Kafka Streams application id: its
 *       consumer group and transactional ids. Every instance running the same rules uses the same id</td></tr>
 *   <tr><td>startFrom</td><td>latest</td><td>where a source without committed offsets starts: {@code latest} (only
 *       records written from now on) or {@code earliest} (the whole topic: old records are scheduled too, and
 *       those already past their due time are delivered at once)</td></tr>
 *   <tr><td>threads</td><td>1</td><td>stream threads of this instance</td></tr>
 *   <tr><td>commitInterval</td><td>100ms</td><td>how often a transaction is committed; records reach the intake's
 *       read_committed consumer at the commit, so this adds to the lateness of short delays</td></tr>
 *   <tr><td>closeTimeout</td><td>30s</td><td>how long a stop waits for the stream threads to commit</td></tr>
 *   <tr><td>stateDir</td><td>{@code <java.io.tmpdir>/delay-bridge-rules}</td><td>Kafka Streams' state directory;
 *       stateless rules keep only a lock file there</td></tr>
 *   <tr><td>streams</td><td>{}</td><td>extra Kafka Streams properties ({@code consumer.session.timeout.ms}, ...);
 *       kafka.common applies too</td></tr>
 * </table>
 */
@SettingsCheck
public class RuleEngineFactory implements SettingsCheck.Checked {

    /** Properties whose change would break the rules' guarantee or identity; set by the bridge. */
    private static final Set<String> OWNED = Set.of(
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
            StreamsConfig.APPLICATION_ID_CONFIG,
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);

    @Pattern(regexp = "[a-zA-Z0-9._-]{1,200}", message = "is \"${validatedValue}\": use 1 to 200 of a-z A-Z 0-9 . _ -")
    private String applicationId;

    @NotNull
    @Pattern(regexp = "earliest|latest", message = "is \"${validatedValue}\": use latest (records from now on) or"
            + " earliest (the whole topic)")
    private String startFrom = "latest";

    @Min(value = 1, message = "is ${validatedValue}: use 1 to 64 stream threads")
    @Max(value = 64, message = "is ${validatedValue}: use 1 to 64 stream threads")
    private int threads = 1;

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS, message = "is ${validatedValue}: use 10ms to 60s, e.g. 100ms")
    @MaxDuration(value = 60, unit = TimeUnit.SECONDS, message = "is ${validatedValue}: use 10ms to 60s, e.g. 100ms")
    private Duration commitInterval = Duration.milliseconds(100);

    @NotNull
    private Duration closeTimeout = Duration.seconds(30);

    private String stateDir;

    @NotNull
    private Map<String, String> streams = new LinkedHashMap<>();

    @Override
    public void check(SettingsCheck.Problems problems) {
        List<String> owned = streams.keySet().stream().filter(OWNED::contains).sorted().toList();
        if (!owned.isEmpty()) {
            problems.add("streams", "sets " + owned + ", which the bridge sets itself (exactly_once_v2 keeps every"
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
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir != null ? stateDir
                : Path.of(System.getProperty("java.io.tmpdir"), "delay-bridge-rules").toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(threads));
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitInterval.toMilliseconds()));
        p.put(StreamsConfig.CLIENT_ID_CONFIG, applicationId(kafka.getGroupId()));
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
