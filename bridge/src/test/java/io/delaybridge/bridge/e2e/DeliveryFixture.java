package io.delaybridge.bridge.e2e;

import io.delaybridge.testkit.TestServers;

/**
 * What an end-to-end test stands on: unique names (intake, deadletter, group, key prefix), a Kafka client, and a
 * one-partition target topic whose deliveries are collected ({@link #collectTarget()}, where the test wants it made).
 * The test starts its bridges itself, on the shared Redis or on one it owns.
 */
final class DeliveryFixture implements AutoCloseable {

    final TestNames names;
    final String target;
    final KafkaClient kafka;
    KafkaClient.Collector delivered;

    DeliveryFixture(TestServers servers) {
        names = TestNames.unique(servers);
        target = names.target("out");
        kafka = new KafkaClient(servers.kafkaBootstrap());
    }

    /** Creates the target topic and collects what is delivered to it from now on. */
    KafkaClient.Collector collectTarget() {
        kafka.createTopics(1, target);
        delivered = kafka.collect(target);
        return delivered;
    }

    @Override
    public void close() {
        kafka.close();
    }
}
