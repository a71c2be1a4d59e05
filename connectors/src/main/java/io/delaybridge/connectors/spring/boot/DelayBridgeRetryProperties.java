package io.delaybridge.connectors.spring.boot;

import io.delaybridge.connectors.DelayedRecords;
import io.delaybridge.connectors.spring.DelayBridgeErrorHandler;
import io.delaybridge.connectors.spring.RetryBackOff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.kafka.core.KafkaOperations;

/**
 * {@code delay-bridge.retry.*}: how listeners of a Spring Boot application retry through the bridge.
 *
 * <pre>{@code
 * delay-bridge:
 *   retry:
 *     enabled: true                     # optional: set, the start fails if retries cannot be put in place
 *     intake-topic: delay-intake        # the bridge's intake
 *     attempts: 4                       # deliveries, the first included; then the dead-letter topic
 *     back-off:                         # before each delayed retry: 1 s, 2 s, 4 s, ... at most 5 min, +-10%
 *       delay: 1s
 *       multiplier: 2.0
 *       max-delay: 5m
 *       jitter: 0.1
 *       # delays: [1s, 30s, 10m]        # or a list (the last one repeats)
 *     blocking:                         # quick tries before a delivery counts as failed
 *       retries: 2
 *       interval: 100ms
 *     dead-letter:
 *       suffix: -dlt                    # orders -> orders-dlt; or topic: all-failures
 *       create-topic: false             # true: create orders-dlt with the partitions of orders
 *     same-partition: true              # false: retries go where the partitioner puts their key
 *     not-retryable:                    # straight to the dead-letter topic, beside Spring's defaults
 *       - com.example.InvalidOrderException
 * }</pre>
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code enabled}</td><td>true</td><td>false leaves Boot's own error handling; set to true, the start
 *       fails when the handler cannot be put in place (otherwise a WARN says why, as soon as any
 *       {@code delay-bridge.retry.*} key is set)</td></tr>
 *   <tr><td>{@code intake-topic}</td><td>{@code delay-intake}</td><td>the bridge's intake topic</td></tr>
 *   <tr><td>{@code same-partition}</td><td>true</td><td>a retry comes back on the partition its original was read
 *       from ({@code delay-partition}); false: the partitioner decides</td></tr>
 *   <tr><td>{@code retry-topic}</td><td>none</td><td>deliver retries there instead of the original topic (the
 *       listener must read it too)</td></tr>
 *   <tr><td>{@code attempts}</td><td>3</td><td>deliveries before the dead-letter topic, the first included</td></tr>
 *   <tr><td>{@code back-off.delay}</td><td>1s</td><td>the first (or every) delay</td></tr>
 *   <tr><td>{@code back-off.multiplier}</td><td>1.0</td><td>above 1: exponential</td></tr>
 *   <tr><td>{@code back-off.max-delay}</td><td>none</td><td>the cap of an exponential back-off</td></tr>
 *   <tr><td>{@code back-off.jitter}</td><td>0</td><td>0 to 1: each delay times a random 1 +- jitter</td></tr>
 *   <tr><td>{@code back-off.delays}</td><td>none</td><td>a list of delays instead (not with a multiplier)</td></tr>
 *   <tr><td>{@code blocking.retries}</td><td>0</td><td>quick tries per delivery, blocking the partition</td></tr>
 *   <tr><td>{@code blocking.interval}</td><td>0</td><td>the pause between quick tries</td></tr>
 *   <tr><td>{@code dead-letter.suffix}</td><td>{@code -dlt}</td><td>dead-letter topic = original topic + suffix</td></tr>
 *   <tr><td>{@code dead-letter.create-topic}</td><td>false</td><td>create a missing dead-letter topic with the
 *       original topic's partition count (otherwise create {@code <topic>-dlt} yourself)</td></tr>
 *   <tr><td>{@code dead-letter.topic}</td><td>none</td><td>one dead-letter topic for all instead</td></tr>
 *   <tr><td>{@code not-retryable}</td><td>Spring's</td><td>exception classes to dead-letter at once</td></tr>
 *   <tr><td>{@code send-timeout}</td><td>30s</td><td>the wait for the intake's acknowledgement</td></tr>
 * </table>
 *
 * A bad value stops the application's start naming the key, the value and the fix.
 */
@ConfigurationProperties(prefix = DelayBridgeRetryProperties.PREFIX)
public class DelayBridgeRetryProperties {

    /** The prefix of every setting. */
    public static final String PREFIX = "delay-bridge.retry";

    private boolean enabled = true;
    private String intakeTopic = DelayedRecords.DEFAULT_INTAKE;
    private String retryTopic;
    private boolean samePartition = true;
    private int attempts = 3;
    private final BackOff backOff = new BackOff();
    private final Blocking blocking = new Blocking();
    private final DeadLetter deadLetter = new DeadLetter();
    private List<Class<?>> notRetryable = new ArrayList<>();
    private Duration sendTimeout = Duration.ofSeconds(30);

    /**
     * @param template sends retries and dead letters
     * @return a handler builder with these settings
     * @throws IllegalArgumentException naming the key, the value and the fix
     */
    @SuppressWarnings("unchecked")
    public DelayBridgeErrorHandler.Builder toBuilder(KafkaOperations<?, ?> template) {
        DelayBridgeErrorHandler.Builder b = DelayBridgeErrorHandler.builder(template);
        set("intake-topic", intakeTopic, () -> b.intakeTopic(intakeTopic));
        if (retryTopic != null) {
            set("retry-topic", retryTopic, () -> b.retryTopic(retryTopic));
        }
        b.retryToOriginalPartition(samePartition);
        set("attempts", attempts, () -> b.attempts(attempts));
        set("back-off", backOff, () -> b.backOff(backOff.toBackOff()));
        set("blocking", blocking, () -> b.blockingRetries(blocking.retries, blocking.interval));
        set("dead-letter.suffix", deadLetter.suffix, () -> b.deadLetterTopicSuffix(deadLetter.suffix));
        if (deadLetter.topic != null) {
            set("dead-letter.topic", deadLetter.topic, () -> b.deadLetterTopic(deadLetter.topic));
        }
        b.createDeadLetterTopics(deadLetter.createTopic);
        for (Class<?> type : notRetryable) {
            if (!Exception.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException(
                        PREFIX + ".not-retryable: " + type.getName() + " is not an Exception; list exception classes");
            }
            b.notRetryable((Class<? extends Exception>) type);
        }
        set("send-timeout", sendTimeout, () -> b.sendTimeout(sendTimeout));
        return b;
    }

    private static void set(String key, Object value, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(PREFIX + "." + key + ": " + value + " is refused: " + e.getMessage(), e);
        }
    }

    /** {@code back-off.*}: fixed ({@code delay}), exponential ({@code multiplier} above 1), or a list. */
    public static class BackOff {
        private Duration delay = Duration.ofSeconds(1);
        private double multiplier = 1.0;
        private Duration maxDelay;
        private double jitter;
        private List<Duration> delays = new ArrayList<>();

        RetryBackOff toBackOff() {
            RetryBackOff b;
            if (!delays.isEmpty()) {
                if (multiplier != 1.0) {
                    throw new IllegalArgumentException("give either delays (a list) or a multiplier, not both");
                }
                b = RetryBackOff.of(delays);
            } else if (multiplier != 1.0) {
                b = RetryBackOff.exponential(delay, multiplier, maxDelay != null ? maxDelay : Duration.ofDays(365));
            } else {
                b = RetryBackOff.fixed(delay);
            }
            return jitter > 0 ? b.withJitter(jitter) : b;
        }

        public Duration getDelay() {
            return delay;
        }

        public void setDelay(Duration delay) {
            this.delay = delay;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

        public double getJitter() {
            return jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }

        public List<Duration> getDelays() {
            return delays;
        }

        public void setDelays(List<Duration> delays) {
            this.delays = delays;
        }

        @Override
        public String toString() {
            return delays.isEmpty()
                    ? "{delay: " + delay + ", multiplier: " + multiplier + ", max-delay: " + maxDelay + ", jitter: "
                            + jitter + "}"
                    : "{delays: " + delays + ", multiplier: " + multiplier + "}";
        }
    }

    /** {@code blocking.*}: quick tries per delivery. */
    public static class Blocking {
        private int retries;
        private Duration interval = Duration.ZERO;

        public int getRetries() {
            return retries;
        }

        public void setRetries(int retries) {
            this.retries = retries;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        @Override
        public String toString() {
            return "{retries: " + retries + ", interval: " + interval + "}";
        }
    }

    /** {@code dead-letter.*}: where dead letters go. */
    public static class DeadLetter {
        private String suffix = DelayBridgeErrorHandler.DEFAULT_DEAD_LETTER_SUFFIX;
        private String topic;
        private boolean createTopic;

        public boolean isCreateTopic() {
            return createTopic;
        }

        public void setCreateTopic(boolean createTopic) {
            this.createTopic = createTopic;
        }

        public String getSuffix() {
            return suffix;
        }

        public void setSuffix(String suffix) {
            this.suffix = suffix;
        }

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getIntakeTopic() {
        return intakeTopic;
    }

    public void setIntakeTopic(String intakeTopic) {
        this.intakeTopic = intakeTopic;
    }

    public String getRetryTopic() {
        return retryTopic;
    }

    public void setRetryTopic(String retryTopic) {
        this.retryTopic = retryTopic;
    }

    public boolean isSamePartition() {
        return samePartition;
    }

    public void setSamePartition(boolean samePartition) {
        this.samePartition = samePartition;
    }

    public int getAttempts() {
        return attempts;
    }

    public void setAttempts(int attempts) {
        this.attempts = attempts;
    }

    public BackOff getBackOff() {
        return backOff;
    }

    public Blocking getBlocking() {
        return blocking;
    }

    public DeadLetter getDeadLetter() {
        return deadLetter;
    }

    public List<Class<?>> getNotRetryable() {
        return notRetryable;
    }

    public void setNotRetryable(List<Class<?>> notRetryable) {
        this.notRetryable = notRetryable;
    }

    public Duration getSendTimeout() {
        return sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }
}
