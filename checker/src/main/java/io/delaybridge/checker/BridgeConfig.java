package io.delaybridge.checker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The configuration file every bridge of a campaign starts with. */
final class BridgeConfig {

    private BridgeConfig() {}

    /**
     * Writes {@code bridge.yml} into {@code dir}: the shipped settings but for what the campaign needs (its topics,
     * group and key prefix, a static member id per bridge, bounded in-flight counts for the leftovers check, the
     * lease and hot window of {@code options}); the rest comes from each bridge's environment.
     */
    static Path write(CampaignOptions options, Path dir, int replicationFactor) throws IOException {
        String yaml = """
                # Written by the fault campaign: bridges of one group on the campaign's broker and Redis.
                kafka:
                  bootstrapServers: ${KAFKA_BOOTSTRAP_SERVERS}
                  intakeTopic: %s
                  deadletterTopic: %s
                  groupId: %s
                  createTopics: true
                  intakePartitions: %d
                  replicationFactor: %d
                  # one static member id per bridge (BridgeFleet); session and heartbeat as shipped (8 s, 1 s)
                  instanceId: ${DELAY_INSTANCE_ID}
                  consumer:
                    max.poll.records: "%d"
                    # also the rebalance timeout: after the broker (group coordinator) restarts, a rebalance can wait
                    # this long for members that died meanwhile (seen: 5 minutes with the default)
                    max.poll.interval.ms: "60000"
                redis:
                  uri: ${REDIS_URI}
                  keyPrefix: %s
                  # a cluster's master acknowledges before its replica has the write: wait for the replica, so a
                  # killed master loses nothing whose offset was committed
                  waitReplicas: %d
                intake:
                  expressBufferRecords: %d
                %spump:
                  lease: %dms
                  maxInFlight: %d
                  revokeDrain: 5s
                  retryBackoff: 200ms
                  maxRetryBackoff: 2s
                  maxAttempts: 30
                delivery:
                  # --exactly-once on: deliveries in Kafka transactions, read back read_committed by the watch
                  exactlyOnce: ${DELAY_EXACTLY_ONCE:-false}
                server:
                  applicationConnectors:
                    - type: http
                      bindHost: 127.0.0.1
                      port: ${DELAY_HTTP_PORT}
                  adminConnectors:
                    - type: http
                      bindHost: 127.0.0.1
                      port: ${DELAY_ADMIN_PORT}
                  requestLog:
                    appenders: []
                logging:
                  level: INFO
                  loggers:
                    org.apache.kafka: WARN
                    io.lettuce: WARN
                    org.eclipse.jetty: WARN
                    io.dropwizard: WARN
                """.formatted(
                        Campaign.INTAKE,
                        Campaign.DEADLETTER,
                        Campaign.GROUP,
                        options.partitions(),
                        replicationFactor,
                        Campaign.MAX_POLL_RECORDS,
                        Campaign.KEY_PREFIX,
                        options.redis() == CampaignOptions.RedisTopology.CLUSTER ? 1 : 0,
                        Campaign.EXPRESS_BUFFER_RECORDS,
                        // --hot-window: that much ahead, records wait in the far tier; else the shipped default
                        options.hotWindow().isEmpty() ? "" : "  hotWindow: " + options.hotWindow() + "\n",
                        options.lease().toMillis(),
                        Campaign.MAX_IN_FLIGHT);
        Path file = dir.resolve("bridge.yml");
        Files.writeString(file, yaml);
        return file;
    }
}
