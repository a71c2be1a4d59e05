package io.delaybridge.connectors.spring;

import io.delaybridge.connectors.DelayedRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer.HeaderNames.HeadersToAdd;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A Spring Kafka {@code CommonErrorHandler} that retries a failed record through the delay bridge instead of retry
 * topics: a few quick blocking tries first (Spring's {@link DefaultErrorHandler}), then the record goes to the
 * bridge's intake topic and comes back to the same listener, on the partition it was read from, when its back-off has
 * passed, to the millisecond; after
 * the last attempt it goes to the dead-letter topic as Spring's {@link DeadLetterPublishingRecoverer} puts it there.
 *
 * <pre>{@code
 * @Bean
 * ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
 *         ConsumerFactory<String, String> consumerFactory, KafkaTemplate<String, String> template) {
 *     var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
 *     factory.setConsumerFactory(consumerFactory);
 *     factory.setCommonErrorHandler(DelayBridgeErrorHandler.builder(template)
 *             .blockingRetries(2, Duration.ofMillis(100))          // 3 quick tries per delivery
 *             .backOff(RetryBackOff.exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5)).withJitter(0.1))
 *             .attempts(5)                                         // 5 deliveries, then orders-dlt
 *             .notRetryable(InvalidOrderException.class)           // straight to orders-dlt
 *             .build());
 *     return factory;
 * }
 *
 * @KafkaListener(topics = "orders")
 * void onOrder(String order) { ... }   // throws: the record comes back in 1 s, 2 s, 4 s, 8 s, then orders-dlt
 * }</pre>
 *
 * <p>With Spring Boot, {@code delay-bridge.retry.*} properties in {@code application.yml} build the same handler
 * (see {@code io.delaybridge.connectors.spring.boot}). Spring Kafka 3.3 (Spring Boot 3.5) and 4.x (Boot 4.0, 4.1)
 * are supported and tested.
 *
 * <h2>What happens to a failed record</h2>
 * <ol>
 *   <li>The listener throws. Unless the exception is not retryable, the record is tried again at once, up to
 *       {@link Builder#blockingRetries blockingRetries} times, {@code interval} apart, blocking its partition (this is
 *       {@link DefaultErrorHandler}'s own back-off).</li>
 *   <li>Still failing on delivery {@code n < attempts}: the record goes to the intake topic with
 *       {@code delay-target} its own topic (or {@link Builder#retryTopic the retry topic}), {@code delay-ms} the
 *       back-off for retry {@code n}, its key, value and headers, {@code x-delay-retry-attempt: n+1} and
 *       {@code x-delay-retry-origin: topic/partition/offset} of its first failed delivery. The send is waited for,
 *       then the offset is committed and the partition goes on with the next record: nothing blocks later records,
 *       of the same key included, just as with retry topics.</li>
 *   <li>The bridge delivers it to the topic when due; the same listener receives it, with the bridge's
 *       {@code delay-id}, {@code delay-due-at} headers beside its own.</li>
 *   <li>Failing on delivery {@code attempts}, or with an exception Spring classifies as not retryable
 *       ({@code DeserializationException}, {@code MessageConversionException}, {@code ClassCastException}, ...,
 *       and {@link Builder#notRetryable}): a {@link DeadLetterPublishingRecoverer} publishes it to
 *       {@code <original topic>-dlt}, the partition of the original record, with Spring's {@code kafka_dlt-*}
 *       exception headers, its {@code kafka_dlt-original-*} headers describing the original record (its first
 *       delivery), {@code x-delay-retry-last} the position of the delivery that failed last, and
 *       {@code x-delay-retry-attempt} the number of deliveries made. Create {@code <original topic>-dlt} with the
 *       original's partition count, or turn on {@link Builder#createDeadLetterTopics}.</li>
 * </ol>
 *
 * <h2>Duplicates and ordering</h2>
 * A retry is scheduled under the message id {@code <topic>-<partition>-<offset>-retry-<n>} of the first failed
 * delivery. If the application dies after the send to the intake and before the failed record's offset is
 * committed, the record is read and fails again after the restart, and the same retry is sent again under the same
 * id: the bridge replaces the pending one, it does not deliver two. Only if the first copy was already delivered (its
 * back-off is shorter than the restart) is it delivered twice; a listener that must not see repeats drops them by
 * {@code delay-id}. Records after a failed one are not held back while it waits, so a retried record arrives after
 * later records of its key; a listener that needs per-key order must not use delayed retries (use blocking ones).
 *
 * <p>The handler does not seek after an error ({@code setSeekAfterError(false)}): the container keeps the poll's
 * other records in memory and goes on with them, so blocking retries must stay short beside
 * {@code max.poll.interval.ms}. Call {@code setSeekAfterError(true)} for Spring's default (seek back and fetch again).
 *
 * <p>The template sends to the intake and the dead-letter topic; its serializers must write what the listener's
 * deserializers read, as for {@link DeadLetterPublishingRecoverer}. A transactional template sends each retry in a
 * transaction of its own.
 *
 * <h2>Exactly-once listeners</h2>
 * A transactional container (a {@code KafkaTransactionManager}) does not call this handler: it rolls the listener's
 * transaction back and calls its after-rollback processor. Give that one the recoverer alone:
 *
 * <pre>{@code
 * // producerFactory has a transactionIdPrefix; the listener's consumer reads with isolation.level=read_committed
 * var template = new KafkaTemplate<>(producerFactory);
 * factory.getContainerProperties().setKafkaAwareTransactionManager(new KafkaTransactionManager<>(producerFactory));
 * factory.setAfterRollbackProcessor(new DefaultAfterRollbackProcessor<>(
 *         DelayBridgeErrorHandler.builder(template).backOff(RetryBackOff.fixed(Duration.ofSeconds(1))).attempts(3)
 *                 .buildRecoverer(),
 *         new FixedBackOff(0L, 0L),   // no blocking retries: the first failed delivery goes to the bridge
 *         template, true));           // commitRecovered: the failed record's offset in the same transaction
 * }</pre>
 *
 * <p>The processor then runs in a new transaction of the container's producer factory: the retry (or the dead
 * letter) and the failed record's offset commit together or not at all. A crash between the send and the commit
 * aborts the retry, which the bridge (it reads the intake {@code read_committed}) never schedules, and the record
 * fails again after the restart: one committed retry per failed delivery. (Only a send slower than the send timeout
 * can commit without the offset: Spring reads the record again and the repeat, under the same {@code delay-id},
 * replaces the first.) The template must be built on the transaction manager's producer factory, or its send is
 * not part of that Kafka transaction. Blocking retries are the processor's back-off (each one a rollback and a
 * re-read), not {@link Builder#blockingRetries}; Spring's default back-off, when none is given, re-reads a failed
 * record 9 times before the recoverer sees it. The bridge delivers the retry at least once, as any delayed record:
 * a listener that must never see a repeat still drops repeats by {@code delay-id}.
 */
public class DelayBridgeErrorHandler extends DefaultErrorHandler {

    /** The dead-letter topic of a record from {@code orders} is {@code orders-dlt}, as with Spring's defaults. */
    public static final String DEFAULT_DEAD_LETTER_SUFFIX = "-dlt";

    private final DelayBridgeRecoverer recoverer;

    private DelayBridgeErrorHandler(DelayBridgeRecoverer recoverer, int blockingRetries, Duration interval) {
        super(recoverer, new FixedBackOff(interval.toMillis(), blockingRetries));
        // the container retries and goes on with the poll's other records in memory, without seeking back and
        // fetching them again: a failure then costs one acknowledged send to the intake (Spring's default seeks,
        // and measured ~7 ms a failed record here, which backs a busy listener up behind its own failures)
        setSeekAfterError(false);
        this.recoverer = recoverer;
        recoverer.classifyWith(this::isRetryable);
    }

    /**
     * Starts a handler that sends retries and dead letters with {@code template}.
     *
     * @param template sends to the intake and the dead-letter topic, e.g. Spring Boot's {@code KafkaTemplate}
     * @return a builder with the defaults: intake {@value DelayedRecords#DEFAULT_INTAKE}, 3 attempts, a fixed 1 s
     *         back-off, no blocking retries, dead letters to {@code <topic>-dlt}
     */
    public static Builder builder(KafkaOperations<?, ?> template) {
        return new Builder(template);
    }

    /** @return the recoverer that schedules retries and dead-letters */
    public DelayBridgeRecoverer recoverer() {
        return recoverer;
    }

    private boolean isRetryable(Exception e) {
        return SpringClassification.isRetryable(this, e);
    }

    @Override
    public String toString() {
        return "DelayBridgeErrorHandler[" + recoverer + "]";
    }

    /** Options of {@link DelayBridgeErrorHandler}; each setter checks its value at once. Not thread-safe. */
    public static final class Builder {

        private final KafkaOperations<?, ?> template;
        private String intake = DelayedRecords.DEFAULT_INTAKE;
        private String retryTopic;
        private RetryBackOff backOff = RetryBackOff.fixed(Duration.ofSeconds(1));
        private int attempts = 3;
        private int blockingRetries;
        private Duration blockingInterval = Duration.ZERO;
        private String deadLetterSuffix = DEFAULT_DEAD_LETTER_SUFFIX;
        private String deadLetterTopic;
        private DeadLetterPublishingRecoverer deadLetterRecoverer;
        private Duration sendTimeout = Duration.ofSeconds(30);
        private boolean samePartition = true;
        private boolean createDeadLetterTopics;
        private final List<Class<? extends Exception>> notRetryable = new ArrayList<>();

        private Builder(KafkaOperations<?, ?> template) {
            if (template == null) {
                throw new IllegalArgumentException(
                        "template is null; give the KafkaTemplate that sends retries to" + " the intake topic");
            }
            this.template = template;
        }

        /**
         * @param topic the bridge's intake topic (default {@value DelayedRecords#DEFAULT_INTAKE})
         * @return this
         */
        public Builder intakeTopic(String topic) {
            intake = topic(topic, "intake topic");
            return this;
        }

        /**
         * Delivers retries to this topic rather than the one the record came from. The listener must read it too
         * ({@code @KafkaListener(topics = {"orders", "orders-retry"})}): then records that never failed are not
         * read again by other consumer groups of the original topic. Dead letters still go to
         * {@code <original topic>-dlt}.
         *
         * @param topic a topic the same listener reads
         * @return this
         */
        public Builder retryTopic(String topic) {
            retryTopic = topic(topic, "retry topic");
            return this;
        }

        /**
         * @param backOff the wait before each delayed retry (default fixed 1 s)
         * @return this
         */
        public Builder backOff(RetryBackOff backOff) {
            if (backOff == null) {
                throw new IllegalArgumentException("back-off is null; e.g. RetryBackOff.fixed(Duration.ofSeconds(1))");
            }
            this.backOff = backOff;
            return this;
        }

        /**
         * @param attempts deliveries of a record to the listener, the first included, before it is dead-lettered
         *                 (default 3, as {@code @RetryableTopic}); 1 dead-letters at once
         * @return this
         */
        public Builder attempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("attempts " + attempts + " must be 1 or more (1: no retries)");
            }
            this.attempts = attempts;
            return this;
        }

        /**
         * Quick tries before a delivery counts as failed: the container re-invokes the listener at once, up to
         * {@code retries} times, {@code interval} apart, holding back the partition's other records meanwhile.
         *
         * @param retries  0 (the default) or more
         * @param interval the pause between them, e.g. 100 ms; keep it short, the partition waits
         * @return this
         */
        public Builder blockingRetries(int retries, Duration interval) {
            if (retries < 0) {
                throw new IllegalArgumentException("blocking retries " + retries + " must be 0 or more");
            }
            if (interval == null || interval.isNegative()) {
                throw new IllegalArgumentException("blocking retry interval " + interval + " must be zero or more");
            }
            blockingRetries = retries;
            blockingInterval = interval;
            return this;
        }

        /**
         * @param suffix appended to the original topic for its dead-letter topic (default {@code -dlt})
         * @return this
         */
        public Builder deadLetterTopicSuffix(String suffix) {
            if (suffix == null || suffix.isEmpty()) {
                throw new IllegalArgumentException("dead-letter suffix is empty; e.g. -dlt, or set deadLetterTopic");
            }
            deadLetterSuffix = suffix;
            deadLetterTopic = null;
            return this;
        }

        /**
         * @param topic one dead-letter topic for every original topic (the producer's partitioner picks the
         *              partition)
         * @return this
         */
        public Builder deadLetterTopic(String topic) {
            deadLetterTopic = topic(topic, "dead-letter topic");
            return this;
        }

        /**
         * Dead letters through this recoverer (its topic naming, template and header settings) rather than one
         * built from the suffix; {@code x-delay-retry-attempt} is added to its headers.
         *
         * @param recoverer Spring's dead-letter publisher, configured as wanted
         * @return this
         */
        public Builder deadLetterRecoverer(DeadLetterPublishingRecoverer recoverer) {
            if (recoverer == null) {
                throw new IllegalArgumentException("dead-letter recoverer is null");
            }
            deadLetterRecoverer = recoverer;
            return this;
        }

        /**
         * Exceptions that go to the dead-letter topic at once, beside Spring's defaults. A listener's exception is
         * matched with its causes, as {@link DefaultErrorHandler} matches it.
         *
         * @param types exception classes
         * @return this
         */
        @SafeVarargs
        public final Builder notRetryable(Class<? extends Exception>... types) {
            for (Class<? extends Exception> t : types) {
                if (t == null) {
                    throw new IllegalArgumentException("a not-retryable exception type is null");
                }
                notRetryable.add(t);
            }
            return this;
        }

        /**
         * Whether a retry comes back on the partition its original was read from ({@code delay-partition}, the
         * default) or wherever the producer's partitioner puts its key. The default keeps a retry with the consumer
         * that holds the original's partition, whatever client (and hash) produced the original: a librdkafka client
         * (kcat, Go, Python, Node) partitions keys otherwise than the Java client the bridge sends with. Retries to a
         * {@link #retryTopic retry topic} are always left to the partitioner.
         *
         * @param same false to leave the partition to the partitioner
         * @return this
         */
        public Builder retryToOriginalPartition(boolean same) {
            samePartition = same;
            return this;
        }

        /**
         * Creates a dead-letter topic that does not exist, before its first record, with the partition count of the
         * original topic (off by default, as with Spring's own dead-letter publisher): a dead letter then keeps its
         * original partition. Otherwise create {@code <topic>-dlt} with as many partitions as {@code <topic>}; with
         * fewer, Spring warns and lets the partitioner choose.
         *
         * @param create true to create missing dead-letter topics through an admin client of the template's settings
         * @return this
         */
        public Builder createDeadLetterTopics(boolean create) {
            createDeadLetterTopics = create;
            return this;
        }

        /**
         * @param timeout how long a send to the intake may take before the record is handled again (default 30 s)
         * @return this
         */
        public Builder sendTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("send timeout " + timeout + " must be positive");
            }
            sendTimeout = timeout;
            return this;
        }

        /** @return the handler to set on a listener container factory ({@code setCommonErrorHandler}) */
        @SuppressWarnings("unchecked")
        public DelayBridgeErrorHandler build() {
            DelayBridgeErrorHandler handler =
                    new DelayBridgeErrorHandler(recoverer(e -> true), blockingRetries, blockingInterval);
            if (!notRetryable.isEmpty()) {
                handler.addNotRetryableExceptions(notRetryable.toArray(Class[]::new));
            }
            return handler;
        }

        /**
         * The recoverer alone, for a container that calls recoverers elsewhere: a transactional container's
         * {@code DefaultAfterRollbackProcessor}, with {@code commitRecovered} (see "Exactly-once listeners" on
         * {@link DelayBridgeErrorHandler}). It classifies exceptions as {@link DefaultErrorHandler} does, with
         * {@link #notRetryable} added; blocking retries are the caller's (the processor's back-off).
         *
         * @return the recoverer
         */
        @SuppressWarnings("unchecked")
        public DelayBridgeRecoverer buildRecoverer() {
            return recoverer(SpringClassification.standalone(notRetryable.toArray(Class[]::new)));
        }

        private DelayBridgeRecoverer recoverer(java.util.function.Predicate<Exception> retryable) {
            if (retryTopic != null && retryTopic.equals(intake)) {
                throw new IllegalArgumentException(
                        "retry topic " + retryTopic + " is the intake topic; give a topic" + " the listener reads");
            }
            DeadLetterPublishingRecoverer deadLetter = deadLetterRecoverer != null
                    ? deadLetterRecoverer
                    : new DeadLetterPublishingRecoverer(
                            template,
                            DeadLetterTopics.destination(
                                    deadLetterTopic,
                                    deadLetterSuffix,
                                    createDeadLetterTopics ? new DeadLetterTopics(template) : null));
            // Spring's original-* headers would name the last copy the bridge delivered; ours name the first delivery
            deadLetter.excludeHeader(
                    HeadersToAdd.TOPIC,
                    HeadersToAdd.PARTITION,
                    HeadersToAdd.OFFSET,
                    HeadersToAdd.TS,
                    HeadersToAdd.TS_TYPE);
            deadLetter.addHeadersFunction((record, e) -> DelayBridgeRecoverer.deadLetterHeaders(record));
            return new DelayBridgeRecoverer(
                    template, intake, retryTopic, backOff, attempts, samePartition, sendTimeout, deadLetter, retryable);
        }

        private static String topic(String topic, String what) {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException(what + " is blank; give a topic name");
            }
            return topic;
        }
    }
}
