package io.delaybridge.bridge;

import io.delaybridge.bridge.config.CodecWarmup;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.config.TopicSetup;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;

/**
 * The topics, the first part of {@link DelayBridgeApplication}'s wiring: the admin client (closed last), the intake and
 * deadletter topics checked (or created) on a thread of their own while Redis is checked beside them, and the
 * producer's codec, a native library its first use unpacks and loads, loaded beside both.
 *
 * @param admin the admin client every part shares
 * @param partitions the intake's partition count, once the topics are checked: the store's shard count
 */
record TopicsPart(Admin admin, CompletableFuture<Integer> partitions) {

    /** Starts the checks; their result, or the error naming the topic, comes through {@link #partitions}. */
    static TopicsPart start(KafkaFactory kafka, LifecycleEnvironment lifecycle, StartupTimeline timeline, Time time) {
        StartupSteps.inBackground("delay-startup-codec", () -> CodecWarmup.warm(kafka.producerCompression()));
        Admin admin = Admin.create(kafka.adminProperties());
        lifecycle.manage(DelayBridgeApplication.closing(admin::close));
        CompletableFuture<Integer> partitions = StartupSteps.inBackground("delay-startup-topics", () -> {
            long since = timeline.now();
            int count = new TopicSetup(admin, time)
                    .prepare(
                            kafka.getIntakeTopic(),
                            kafka.getDeadletterTopic(),
                            kafka.isCreateTopics(),
                            kafka.getIntakePartitions(),
                            kafka.getReplicationFactor());
            timeline.took("topics", since);
            return count;
        });
        // a failed check fails the start, and Dropwizard stops no managed object of a server that never started: an
        // admin client left open would try the broker again and again, logging each try, for as long as the JVM lives
        partitions.whenComplete((count, error) -> {
            if (error != null) {
                admin.close(Duration.ZERO);
            }
        });
        return new TopicsPart(admin, partitions);
    }

    /** The partition count; a topic problem is thrown as the check threw it. */
    int awaitPartitions() {
        return StartupSteps.await(partitions);
    }
}
