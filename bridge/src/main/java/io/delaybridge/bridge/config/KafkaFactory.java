package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;

/** The Kafka side, where the broker is, the topics, the client settings: {@code kafka:} (docs/configuration.md). */
@SettingsCheck
public class KafkaFactory implements SettingsCheck.Checked {

    /** Properties the bridge's correctness depends on: an override would silently break a guarantee. */
    private static final Set<String> OWNED_CONSUMER_KEYS = Set.of(
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            ConsumerConfig.GROUP_ID_CONFIG,
            ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);

    private static final Set<String> OWNED_PRODUCER_KEYS = Set.of(
            ProducerConfig.ACKS_CONFIG,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    private static final String TOPIC = "[a-zA-Z0-9._-]{1,249}";
    /**
     * Static membership with the classic group protocol: the client chooses the session timeout (the broker allows
     * group.min.session.timeout.ms = 6 s and up), so a dead instance's partitions move within about this plus a
     * heartbeat (docs/reliability.md). The KIP-848 consumer protocol takes the session timeout from the broker
     * (group.consumer.session.timeout.ms, default and minimum 45 s).
     */
    static final String SESSION_TIMEOUT_MS = "8000";

    static final String HEARTBEAT_INTERVAL_MS = "1000";

    /** How long the broker holds a fetch that finds nothing: the consumers' close waits this long (see its use). */
    static final String FETCH_MAX_WAIT_MS = "100";

    private static final String INSTANCE_ID = "[a-zA-Z0-9._:-]{0,249}";
    private static final String TOPIC_MESSAGE =
            "is \"${validatedValue}\": use a legal Kafka topic name (1 to 249 of the characters a-z A-Z 0-9 . _ -)";

    @NotEmpty(message = "is empty: set it to your brokers' host:port list (config.yml reads KAFKA_BOOTSTRAP_SERVERS)")
    @Setting("The brokers to start from.")
    private String bootstrapServers = "localhost:9092";

    @NotNull
    @Pattern(regexp = TOPIC, message = TOPIC_MESSAGE)
    @Setting("The topic producers write delayed records to.")
    private String intakeTopic = "delay-intake";

    @NotNull
    @Pattern(regexp = TOPIC, message = TOPIC_MESSAGE)
    @Setting("Where refused and undeliverable records go; must differ from the intake.")
    private String deadletterTopic = "delay-deadletter";

    @NotEmpty(message = "is empty: name the consumer group all bridge instances share, e.g. delay-bridge")
    @Setting("The consumer group of all bridge instances; shards follow its partition assignment.")
    private String groupId = "delay-bridge";

    @Pattern(
            regexp = INSTANCE_ID,
            message = "is \"${validatedValue}\": use up to 249 of the characters a-z A-Z 0-9 . _ "
                    + ": - (e.g. the pod or host name), or leave it empty for the host name")
    @Setting(
            value = "This instance's static member id in the group (`group.instance.id`): the same across restarts, "
                    + "unique among running instances.",
            defaultMeans = "the host name (`HOSTNAME`, else the resolver's)")
    private String instanceId = "";

    @Setting("Create the intake and deadletter topics if missing; with `false` a missing intake stops start-up.")
    private boolean createTopics = true;

    @Setting(
            value = "Partitions of a created intake topic; one shard each.",
            min = "1",
            max = "10000",
            why = "partitions, one shard each")
    private int intakePartitions = 16;

    @Setting(
            value = "Replication of created topics; `-1` takes the broker's `default.replication.factor`.",
            min = "-1",
            max = "32767",
            why = "-1 for the broker's default.replication.factor")
    private int replicationFactor = -1;

    @NotNull
    @Setting("Client properties for every client: `security.protocol`, `sasl.*`, `ssl.*`.")
    private Map<String, String> common = new LinkedHashMap<>();

    @NotNull
    @Setting("Extra intake consumer properties; those the bridge sets itself are refused.")
    private Map<String, String> consumer = new LinkedHashMap<>();

    @NotNull
    @Setting("Extra delivery producer properties; those the bridge sets itself are refused.")
    private Map<String, String> producer = new LinkedHashMap<>();

    @Override
    public void check(SettingsCheck.Problems problems) {
        if (intakeTopic != null && intakeTopic.equals(deadletterTopic)) {
            problems.add(
                    "deadletterTopic",
                    "is \"" + deadletterTopic + "\", the same as kafka.intakeTopic: a "
                            + "deadletter record would be read back as intake. Set kafka.deadletterTopic to another topic");
        }
        if (replicationFactor == 0) {
            problems.add(
                    "replicationFactor", "is 0: use -1 for the broker's default.replication.factor, or 1 " + "and up");
        }
        List<String> ownedByBridge = consumer.keySet().stream()
                .filter(OWNED_CONSUMER_KEYS::contains)
                .sorted()
                .toList();
        if (!ownedByBridge.isEmpty()) {
            problems.add(
                    "consumer",
                    "sets " + ownedByBridge + ", which the bridge sets itself (offsets are committed "
                            + "only after Redis holds the records). Remove them from kafka.consumer; the group is "
                            + "kafka.groupId, the member id kafka.instanceId");
        }
        List<String> ownedProducerKeys = producer.keySet().stream()
                .filter(OWNED_PRODUCER_KEYS::contains)
                .sorted()
                .toList();
        if (!ownedProducerKeys.isEmpty()) {
            problems.add(
                    "producer",
                    "sets " + ownedProducerKeys + ", which the bridge sets itself (acks=all and "
                            + "idempotence keep deliveries durable and ordered). Remove them from kafka.producer");
        }
    }

    public Properties adminProperties() {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, groupId + "-admin");
        properties.putAll(common);
        return properties;
    }

    public Properties consumerProperties() {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        // a consumer's close waits for its last fetch session to close, which the broker holds for fetch.max.wait.ms
        // (500 ms by default) when nothing is to be read: every stop of the bridge, a deploy included, waited that long
        // before the next instance could start. An idle consumer fetches a little more often instead.
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
        if (!"consumer".equalsIgnoreCase(consumer.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG))) {
            // the KIP-848 consumer protocol refuses these client settings: the broker owns them there
            properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            properties.put(
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
            properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
            properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
        }
        properties.putAll(common);
        properties.putAll(consumer);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        properties.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, resolvedInstanceId());
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return properties;
    }

    /**
     * A consumer that reads the intake by offset ({@code assign} and {@code seek}; the far tier's thaw and the message
     * API's far records, {@code OffsetReader}): the intake consumer's settings ({@code common}, so TLS and SASL apply,
     * and {@code consumer}), without a group (it is no member and commits nothing), {@code read_committed} whatever
     * {@code consumer} says (an aborted transaction's record is never thawed nor shown), and
     * {@code auto.offset.reset=none}: an offset the log no longer holds is reported, never replaced by the log's start.
     *
     * @param reader what reads (its client id is {@code <groupId>-<reader>}), one name per consumer: {@code thaw}, {@code api}
     */
    public Properties offsetReaderProperties(String reader) {
        Properties properties = consumerProperties();
        for (String groupKey : List.of(
                ConsumerConfig.GROUP_ID_CONFIG,
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)) {
            properties.remove(groupKey);
        }
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + reader);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return properties;
    }

    /** The static member id: {@code instanceId}, or the host name when it is empty. */
    public String resolvedInstanceId() {
        if (instanceId != null && !instanceId.isBlank()) {
            return instanceId;
        }
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(
                        "kafka.instanceId is empty and this host's name cannot be read ("
                                + e.getMessage()
                                + "): set kafka.instanceId (DELAY_INSTANCE_ID) to a name unique to this "
                                + "instance",
                        e);
            }
        }
        return host;
    }

    /** Producer settings: acks=all and idempotence always; {@code maxRecordBytes} sizes the largest request. */
    public Properties producerProperties(int maxRecordBytes) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(64 * 1024));
        // snappy, not lz4: Kafka's lz4 stream allocates (and zeroes) two 64 KiB buffers for every batch, and at
        // moderate rates batches hold a few records (docs/configuration.md)
        properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "snappy");
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        // a deadlettered record is the intake record plus error headers: leave room above the accepted size
        properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(Math.max(maxRecordBytes, 1 << 20) * 2));
        properties.putAll(common);
        properties.putAll(producer);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return properties;
    }

    /** The producer's {@code compression.type}: snappy unless {@code kafka.producer} sets another. */
    public String producerCompression() {
        return String.valueOf(producerProperties(0).get(ProducerConfig.COMPRESSION_TYPE_CONFIG));
    }

    @JsonProperty
    public String getBootstrapServers() {
        return bootstrapServers;
    }

    @JsonProperty
    public void setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    @JsonProperty
    public String getIntakeTopic() {
        return intakeTopic;
    }

    @JsonProperty
    public void setIntakeTopic(String intakeTopic) {
        this.intakeTopic = intakeTopic;
    }

    @JsonProperty
    public String getDeadletterTopic() {
        return deadletterTopic;
    }

    @JsonProperty
    public void setDeadletterTopic(String deadletterTopic) {
        this.deadletterTopic = deadletterTopic;
    }

    @JsonProperty
    public String getGroupId() {
        return groupId;
    }

    @JsonProperty
    public void setGroupId(String groupId) {
        this.groupId = groupId;
    }

    @JsonProperty
    public String getInstanceId() {
        return instanceId;
    }

    @JsonProperty
    public void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    @JsonProperty
    public boolean isCreateTopics() {
        return createTopics;
    }

    @JsonProperty
    public void setCreateTopics(boolean createTopics) {
        this.createTopics = createTopics;
    }

    @JsonProperty
    public int getIntakePartitions() {
        return intakePartitions;
    }

    @JsonProperty
    public void setIntakePartitions(int intakePartitions) {
        this.intakePartitions = intakePartitions;
    }

    @JsonProperty
    public int getReplicationFactor() {
        return replicationFactor;
    }

    @JsonProperty
    public void setReplicationFactor(int replicationFactor) {
        this.replicationFactor = replicationFactor;
    }

    @JsonProperty
    public Map<String, String> getCommon() {
        return common;
    }

    @JsonProperty
    public void setCommon(Map<String, String> common) {
        this.common = common;
    }

    @JsonProperty
    public Map<String, String> getConsumer() {
        return consumer;
    }

    @JsonProperty
    public void setConsumer(Map<String, String> consumer) {
        this.consumer = consumer;
    }

    @JsonProperty
    public Map<String, String> getProducer() {
        return producer;
    }

    @JsonProperty
    public void setProducer(Map<String, String> producer) {
        this.producer = producer;
    }
}
