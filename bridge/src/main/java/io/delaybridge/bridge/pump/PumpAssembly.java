package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.delivery.Delivery;
import io.delaybridge.bridge.probe.PipelineProbe;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import org.slf4j.LoggerFactory;

/**
 * The parts of a {@link Pump}, built and wired to each other in one place: one {@link Wakeups} that every part
 * signals; the {@link ShardOwnership} that the {@link PumpPauses} and the {@link ShardOpening} work on; the {@link
 * InFlightPlaces} that the claims, the {@link Throttle} and the {@link OutcomeHandler} share; the {@link
 * MessageSender} (with its throttle and {@link SeriesTurns}) that the outcome handling reads from; and what the claims
 * use, {@link ClaimRounds} and {@link StoredCheck}. The pump runs its loop over them.
 */
record PumpAssembly(
        Wakeups wakeups,
        ShardOwnership owned,
        PumpPauses pauses,
        ThrottledWarning warnings,
        ShardOpening opening,
        InFlightPlaces places,
        ClaimRounds rounds,
        MessageSender sender,
        StoredCheck storedCheck,
        OutcomeHandler outcomes) {

    /** How often a repeated failure of the pump's store calls is logged, at most. */
    private static final long FAILURE_LOG_INTERVAL_MILLIS = 10_000;

    /** Builds the pump's parts; {@code retryMillis}: how long the pump waits before it tries a failed call again. */
    static PumpAssembly wire(
            DelayStore store,
            PumpSends sends,
            PumpSettings settings,
            PumpMetrics metrics,
            RedisClock redisClock,
            PipelineProbe probe,
            long retryMillis) {
        Delivery delivery = sends.delivery();
        Time time = redisClock.time();
        Wakeups wakeups = new Wakeups(time);
        ShardOwnership owned = new ShardOwnership(store, settings, metrics, wakeups, time);
        PumpPauses pauses = new PumpPauses(store.shardCount(), wakeups, owned);
        ThrottledWarning warnings =
                new ThrottledWarning(LoggerFactory.getLogger(Pump.class), time.clock(), FAILURE_LOG_INTERVAL_MILLIS);
        ShardOpening opening = new ShardOpening(store, delivery, owned, settings.batchSize(), retryMillis, warnings);
        InFlightPlaces places = new InFlightPlaces(settings.maxInFlight(), wakeups);
        ClaimRounds rounds = new ClaimRounds(settings.lookAheadMillis(), settings.batchSize());
        MessageSender sender = new MessageSender(
                delivery,
                wakeups,
                sends.rates(),
                new Throttle(store, places, settings, redisClock::now, time),
                new SeriesTurns(redisClock, delivery.exactlyOnce()),
                settings.lookAheadMillis(),
                redisClock);
        StoredCheck storedCheck = new StoredCheck(store, delivery, sender::key, time);
        OutcomeHandler outcomes =
                new OutcomeHandler(store, sends, settings, metrics, new SendPath(sender, places), redisClock, probe);
        return new PumpAssembly(
                wakeups, owned, pauses, warnings, opening, places, rounds, sender, storedCheck, outcomes);
    }
}
