package io.delaybridge.bridge.rules;

import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the rule topology on Kafka Streams as a managed part of the bridge (or of {@code delay-bridge rules} alone).
 * A stream thread that dies of an unexpected error is replaced: with exactly-once its open transaction is aborted
 * and its records are processed again by the new thread, so nothing is lost and nothing doubled.
 */
public final class RulesRunner implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(RulesRunner.class);

    private final Topology topology;
    private final Properties properties;
    private final Duration closeTimeout;
    private volatile KafkaStreams streams;

    /**
     * @param topology     from {@link RuleTopology#build}
     * @param properties   Kafka Streams settings, {@code processing.guarantee=exactly_once_v2} among them
     * @param closeTimeout how long a stop waits for the stream threads to commit and close
     */
    public RulesRunner(Topology topology, Properties properties, Duration closeTimeout) {
        this.topology = topology;
        this.properties = properties;
        this.closeTimeout = closeTimeout;
    }

    @Override
    public void start() {
        KafkaStreams s = new KafkaStreams(topology, properties);
        s.setUncaughtExceptionHandler(e -> {
            LOG.error("a delay rules stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        s.setStateListener((now, before) -> LOG.info("delay rules: {} -> {}", before, now));
        streams = s;
        s.start();
    }

    @Override
    public void stop() {
        KafkaStreams s = streams;
        if (s != null && !s.close(closeTimeout)) {
            LOG.warn("delay rules did not close within {}", closeTimeout);
        }
    }

    /** The Kafka Streams state: {@code CREATED} before start, {@code RUNNING} or {@code REBALANCING} when well. */
    public KafkaStreams.State state() {
        KafkaStreams s = streams;
        return s == null ? KafkaStreams.State.CREATED : s.state();
    }

    /** Whether the rules are processing, or about to after a rebalance. */
    public boolean isHealthy() {
        KafkaStreams.State state = state();
        return state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING;
    }
}
