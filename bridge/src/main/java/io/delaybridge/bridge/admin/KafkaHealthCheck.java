package io.delaybridge.bridge.admin;

import com.codahale.metrics.health.HealthCheck;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;

/** Healthy while the Kafka cluster answers a describe within the timeout. */
public final class KafkaHealthCheck extends HealthCheck {

    private final Admin admin;
    private final long timeoutMillis;

    public KafkaHealthCheck(Admin admin, long timeoutMillis) {
        this.admin = admin;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    protected Result check() throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();
        int brokers = cluster.nodes().get(timeoutMillis, TimeUnit.MILLISECONDS).size();
        String id = cluster.clusterId().get(timeoutMillis, TimeUnit.MILLISECONDS);
        return Result.healthy("cluster %s, %d broker(s)", id, brokers);
    }
}
