package io.delaybridge.checker;

import io.delaybridge.testkit.KafkaBroker;
import io.delaybridge.testkit.KafkaCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The Kafka a campaign runs on: one broker, or a cluster of KRaft nodes ({@code --brokers 3}). The fault {@code
 * broker} crashes it: the single broker comes back with its group coordinator reloaded from its own log; in a cluster
 * the node coordinating the bridges' group is killed, so the coordinator moves to another node while it is down.
 */
interface CampaignKafka extends AutoCloseable {

    static CampaignKafka start(int brokers, Path dir) {
        return brokers == 1 ? new Single(KafkaBroker.start(dir)) : new Cluster(KafkaCluster.start(dir, brokers));
    }

    /** An admin client of {@code bootstrap} whose calls give up within seconds, not the client's default minute. */
    static Admin admin(String bootstrap) {
        // the default API timeout may not be below the request timeout (30 s by default): the client refuses it
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    /** What the bridges, the producer and the watch get as {@code bootstrap.servers}. */
    String bootstrapServers();

    /** The bridges' {@code kafka.replicationFactor}: a replica of every topic on every node. */
    int replicationFactor();

    /** kill -9 of a broker, then its restart; returns what happened, for the fault log. */
    String crash();

    @Override
    void close();

    /** One broker: it coordinates everything, and comes back reloading it from its own log. */
    record Single(KafkaBroker broker) implements CampaignKafka {

        @Override
        public String bootstrapServers() {
            return broker.bootstrapServers();
        }

        @Override
        public int replicationFactor() {
            return 1;
        }

        @Override
        public String crash() {
            broker.kill();
            broker.restart();
            return "kill -9 Kafka broker, restarted in "
                    + broker.lastStartDuration().toMillis() + " ms";
        }

        @Override
        public void close() {
            broker.close();
        }
    }

    /** Several nodes: the one that coordinates the campaign's consumer group is killed and restarted. */
    record Cluster(KafkaCluster cluster) implements CampaignKafka {

        @Override
        public String bootstrapServers() {
            return cluster.bootstrapServers();
        }

        @Override
        public int replicationFactor() {
            return cluster.size();
        }

        @Override
        public String crash() {
            int coordinator = groupCoordinator();
            KafkaBroker victim = cluster.node(coordinator == 0 ? 1 : coordinator);
            victim.kill();
            victim.restart();
            return "kill -9 Kafka node " + victim.nodeId()
                    + (coordinator == 0 ? " (the group's coordinator unknown)" : " (the bridges' group coordinator)")
                    + ", restarted in " + victim.lastStartDuration().toMillis() + " ms";
        }

        /** The node that coordinates the bridges' group now; 0 if the cluster does not say. */
        private int groupCoordinator() {
            try (Admin admin = admin(bootstrapServers())) {
                return admin.describeConsumerGroups(List.of(Campaign.GROUP))
                        .all()
                        .get(15, TimeUnit.SECONDS)
                        .get(Campaign.GROUP)
                        .coordinator()
                        .id();
            } catch (Exception e) {
                System.out.println("[fault] cannot find the group coordinator: " + e);
                return 0;
            }
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
