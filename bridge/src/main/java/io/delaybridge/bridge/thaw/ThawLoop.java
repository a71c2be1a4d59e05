package io.delaybridge.bridge.thaw;

import io.delaybridge.bridge.log.IntakeLog;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.log.RecordTranslator;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The far tier's thaw, on one thread: for every shard this instance pumps, under the pump's fencing epoch, the far
 * hours that begin within the hot window ({@code windowMillis}) of Redis' clock are thawed, oldest first
 * ({@link HourThaw}), once a second and as a far hour's start enters the window. With the window off (negative) every
 * far hour is thawed at once: a store written while the tier was on drains into the hot tier.
 *
 * <p>A fenced shard has a new owner: it is not thawed under that epoch again (the pump lets it go). Redis or Kafka out
 * of reach: retried with backoff, logged once; an hour stays in the index until its records are stored.
 */
public final class ThawLoop implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(ThawLoop.class);

    /** The most entries fetched and stored in one thaw call (a fetch ends sooner after 4 MiB of records). */
    static final int MAX_RECORDS = 2_000;

    static final long CYCLE_MILLIS = 1_000;
    private static final long FIRST_BACKOFF_MILLIS = 250;
    private static final long MAX_BACKOFF_MILLIS = 10_000;
    private static final Duration KAFKA_CALL_TIMEOUT = Duration.ofSeconds(30);

    private final FarStore far;
    private final LongSupplier redisNow;
    private final Supplier<Map<Integer, Long>> ownedEpochs;
    private final Supplier<OffsetReader> readers;
    private final RecordTranslator translator;
    private final IntakeLog intake;
    private final ThawOutput output;
    private final ThawMetrics metrics;
    private final long windowMillis;
    /** The window, the records a call and those thawed a second ahead of their hour ({@code intake.thawAheadRate}). */
    private final ThawPace pace;

    private final Time time;

    /** Shard -> the epoch under which it was fenced: not thawed again until the pump holds it under another. */
    private final Map<Integer, Long> fenced = new HashMap<>();

    private final Object sleeping = new Object();
    private volatile boolean running;
    private volatile OffsetReader reader;
    private Thread thread;
    private String failure;

    /**
     * @param source       the store's far tier, Redis' clock and the pump's owned shards
     * @param readerProperties client settings of a consumer without a group that reads the intake by offset
     *                         ({@code KafkaFactory.offsetReaderProperties})
     * @param intake       the intake log: its topic, deadletter topic, translator and longest delay
     * @param output       the producer of deadletters, their meters and the thaw's metrics
     * @param windowMillis the hot window: hours beginning within it of Redis' clock are thawed; negative: all of them
     * @param aheadPerSecond records thawed a second at most while their hour has not begun ({@code
     *     intake.thawAheadRate}); 0: no limit
     */
    public ThawLoop(
            ThawSource source,
            Properties readerProperties,
            IntakeLog intake,
            ThawOutput output,
            long windowMillis,
            int aheadPerSecond,
            Time time) {
        this(
                source,
                () -> new OffsetReader(readerProperties, intake.topic(), KAFKA_CALL_TIMEOUT, time),
                intake,
                output,
                new ThawPace(windowMillis, MAX_RECORDS, aheadPerSecond),
                time);
    }

    ThawLoop(
            ThawSource source,
            Supplier<OffsetReader> readers,
            IntakeLog intake,
            ThawOutput output,
            ThawPace pace,
            Time time) {
        this.time = time;
        this.far = source.far();
        this.redisNow = source.redisNow();
        this.ownedEpochs = source.ownedEpochs();
        this.readers = readers;
        this.translator = intake.translator();
        this.intake = intake;
        this.output = output;
        this.metrics = output.metrics();
        this.pace = pace;
        this.windowMillis = pace.windowMillis();
    }

    @Override
    public void start() {
        running = true;
        reader = readers.get();
        thread = new Thread(this::run, "delay-thaw");
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        synchronized (sleeping) {
            sleeping.notifyAll();
        }
        OffsetReader current = reader;
        if (current != null) {
            current.wakeup();
        }
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    private void run() {
        HourThaw hours = new HourThaw(far, reader, translator, output, pace, intake, time);
        long backoff = FIRST_BACKOFF_MILLIS;
        try {
            while (running) {
                long waitMillis;
                try {
                    waitMillis = cycle(hours);
                    if (failure != null) {
                        LOG.info("The thaw works again (it failed: {})", failure);
                        failure = null;
                    }
                    backoff = FIRST_BACKOFF_MILLIS;
                } catch (WakeupException e) {
                    break; // stopping
                } catch (StoreException | KafkaException e) {
                    if (failure == null) {
                        failure = e.getMessage();
                        LOG.warn("The thaw failed, retrying with backoff up to {} ms: {}", MAX_BACKOFF_MILLIS, failure);
                    }
                    waitMillis = backoff;
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = String.valueOf(e);
                        LOG.error("The thaw failed unexpectedly, retrying with backoff", e);
                    }
                    waitMillis = backoff;
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                }
                sleep(waitMillis);
            }
        } finally {
            reader.close();
        }
    }

    /** One pass over the shards pumped here; returns how long to wait before the next. */
    private long cycle(HourThaw hours) {
        long now = redisNow.getAsLong();
        Map<Integer, Long> epochs = ownedEpochs.get();
        fenced.entrySet().removeIf(e -> !e.getValue().equals(epochs.get(e.getKey())));
        metrics.retain(epochs.keySet());
        long until = windowMillis < 0 ? Long.MAX_VALUE : now + windowMillis;
        for (Map.Entry<Integer, Long> owned : epochs.entrySet()) {
            int shard = owned.getKey();
            long epoch = owned.getValue();
            if (!running) {
                break;
            }
            if (fenced.containsKey(shard)) {
                continue;
            }
            try {
                thawShard(hours, shard, epoch, now, until);
            } catch (StoreFencedException e) {
                fenced.put(shard, epoch);
                metrics.forget(shard);
                LOG.warn("Stopped thawing shard {}: {}", shard, e.getMessage());
            }
        }
        return nextCycleMillis(redisNow.getAsLong(), windowMillis, CYCLE_MILLIS);
    }

    /** Thaws the hours of {@code shard} beginning at or before {@code until}, oldest first. */
    private void thawShard(HourThaw hours, int shard, long epoch, long now, long until) {
        List<Long> due = far.farHours(shard, until);
        for (long hour : due) {
            long start = hour * FarEntry.HOUR_MILLIS;
            metrics.oldest(shard, start <= now ? start : Long.MAX_VALUE);
            long startNanos = time.nanoseconds() + TimeUnit.MILLISECONDS.toNanos(start - now);
            if (!hours.thaw(shard, epoch, hour, startNanos, () -> running)) {
                return;
            }
        }
        metrics.oldest(shard, Long.MAX_VALUE);
    }

    /**
     * How long after Redis' time {@code now} the next cycle runs: {@code cycleMillis}, or sooner when the window's
     * end reaches the start of the next hour then.
     */
    static long nextCycleMillis(long now, long windowMillis, long cycleMillis) {
        if (windowMillis < 0) {
            return cycleMillis;
        }
        long reach = now + windowMillis;
        long nextStart = (Math.floorDiv(reach, FarEntry.HOUR_MILLIS) + 1) * FarEntry.HOUR_MILLIS;
        return Math.max(0, Math.min(cycleMillis, nextStart - reach));
    }

    private void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        synchronized (sleeping) {
            if (running) {
                try {
                    sleeping.wait(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    running = false;
                }
            }
        }
    }
}
