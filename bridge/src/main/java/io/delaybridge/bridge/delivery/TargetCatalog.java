package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.time.Time;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows which target topics exist and how many partitions they have, so a delivery to a missing topic fails at once
 * instead of blocking the pump for the producer's {@code max.block.ms} while it waits for metadata that never comes.
 * Answers are cached: a present topic for {@code presentTtlMillis}, a missing one for {@code missingTtlMillis}.
 *
 * <p>A present topic whose answer expired is refreshed in the background: the caller (the release thread, which
 * sends for every shard) gets the answer it had and does not wait for the broker; the next lookup after the refresh
 * sees the new one. Only a topic never seen, forgotten, or cached as missing is looked up while the caller waits
 * (at most {@code lookupTimeoutMillis}).
 */
public final class TargetCatalog {

    private static final Logger LOG = LoggerFactory.getLogger(TargetCatalog.class);

    /**
     * What is known of a topic. {@code partitions} is -1 for a missing topic, -2 for one the broker does not let the
     * bridge describe (so not write either: WRITE implies DESCRIBE), 0 when the lookup itself failed.
     */
    public record TopicState(int partitions, long expiresAt) {
        public boolean missing() {
            return partitions == -1;
        }

        public boolean forbidden() {
            return partitions == -2;
        }

        public boolean known() {
            return partitions != 0;
        }
    }

    private final Admin admin;
    private final Clock clock;
    private final long presentTtlMillis;
    private final long missingTtlMillis;
    private final long lookupTimeoutMillis;
    private final Map<String, TopicState> topics = new ConcurrentHashMap<>();
    private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

    private final MissingTopics missingTopics;

    /** A catalog that follows the broker for missing topics, waiting 5 s where the broker does not create them. */
    public TargetCatalog(
            Admin admin, Clock clock, long presentTtlMillis, long missingTtlMillis, long lookupTimeoutMillis) {
        this(
                admin,
                clock,
                presentTtlMillis,
                missingTtlMillis,
                lookupTimeoutMillis,
                new MissingTopics(admin, MissingTopics.Mode.BROKER, 5_000, lookupTimeoutMillis, Time.of(clock)));
    }

    public TargetCatalog(
            Admin admin,
            Clock clock,
            long presentTtlMillis,
            long missingTtlMillis,
            long lookupTimeoutMillis,
            MissingTopics missingTopics) {
        this.missingTopics = missingTopics;
        this.admin = admin;
        this.clock = clock;
        this.presentTtlMillis = presentTtlMillis;
        this.missingTtlMillis = missingTtlMillis;
        this.lookupTimeoutMillis = lookupTimeoutMillis;
    }

    /** The state of a topic, looked up if the cached answer is absent or expired. Never throws. */
    public TopicState lookup(String topic) {
        long now = clock.millis();
        TopicState cached = topics.get(topic);
        if (cached != null && cached.expiresAt() > now) {
            return cached;
        }
        if (cached != null && cached.partitions() > 0) {
            refreshInBackground(topic, cached);
            return cached;
        }
        TopicState fresh = describe(topic, now);
        if (fresh.known()) {
            topics.put(topic, fresh);
        }
        return fresh;
    }

    /** What a delivery to a topic that does not exist does. */
    public MissingTopics missingTopics() {
        return missingTopics;
    }

    /** Forgets what is known of a topic, e.g. after a send to it failed. */
    public void forget(String topic) {
        topics.remove(topic);
    }

    /**
     * Looks the topic up without waiting, and replaces the expired answer with the new one, unless the answer changed
     * meanwhile (forgotten after a failed send, or looked up again): a slow refresh must not bring back what was
     * forgotten.
     */
    private void refreshInBackground(String topic, TopicState expired) {
        if (!refreshing.add(topic)) {
            return;
        }
        try {
            admin.describeTopics(List.of(topic)).allTopicNames().whenComplete((found, error) -> {
                try {
                    long now = clock.millis();
                    if (error == null) {
                        topics.replace(
                                topic,
                                expired,
                                new TopicState(found.get(topic).partitions().size(), now + presentTtlMillis));
                    } else if (unwrap(error) instanceof UnknownTopicOrPartitionException) {
                        topics.replace(topic, expired, new TopicState(-1, now + missingTtlMillis));
                    } else if (unwrap(error) instanceof TopicAuthorizationException) {
                        topics.replace(topic, expired, new TopicState(-2, now + missingTtlMillis));
                    } else {
                        // keep the answer we had; the next lookup tries again
                        LOG.warn(
                                "Could not refresh target topic {}: {}",
                                topic,
                                unwrap(error).toString());
                    }
                } finally {
                    refreshing.remove(topic);
                }
            });
        } catch (RuntimeException e) {
            refreshing.remove(topic);
            LOG.warn("Could not refresh target topic {}: {}", topic, e.toString());
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof ExecutionException || error instanceof java.util.concurrent.CompletionException
                ? error.getCause()
                : error;
    }

    private TopicState describe(String topic, long now) {
        try {
            Map<String, TopicDescription> found = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(lookupTimeoutMillis, TimeUnit.MILLISECONDS);
            return new TopicState(found.get(topic).partitions().size(), now + presentTtlMillis);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return new TopicState(-1, now + missingTtlMillis);
            }
            if (e.getCause() instanceof TopicAuthorizationException) {
                return new TopicState(-2, now + missingTtlMillis);
            }
            LOG.warn(
                    "Could not look up target topic {}: {}", topic, e.getCause().toString());
            return new TopicState(0, now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TopicState(0, now);
        } catch (java.util.concurrent.TimeoutException e) {
            LOG.warn("Looking up target topic {} took more than {} ms", topic, lookupTimeoutMillis);
            return new TopicState(0, now);
        }
    }
}
