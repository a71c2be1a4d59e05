package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.pump.Throttle.Back;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStore.Parked;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The throttle's hand-backs: held-back messages returned to their shards' due sets, each claimable again from the time
 * the throttle chose (its due time, or later: parked), no attempt counted ({@link DelayStore#parkAsync}), their
 * in-flight places freed when Redis answered.
 */
final class HandBacks {

    private static final Logger LOG = LoggerFactory.getLogger(HandBacks.class);

    private final DelayStore store;
    private final InFlightPlaces places;
    private final List<CompletableFuture<?>> pending = new ArrayList<>();

    HandBacks(DelayStore store, InFlightPlaces places) {
        this.store = store;
        this.places = places;
    }

    /** Returns {@code back} to their shards' due sets, one script per shard; frees their places when answered. */
    void send(List<Back> back) {
        if (back.isEmpty()) {
            return;
        }
        Map<OwnedShard, List<Back>> byShard = new LinkedHashMap<>();
        for (Back b : back) {
            byShard.computeIfAbsent(b.held().shard(), s -> new ArrayList<>()).add(b);
        }
        byShard.forEach((shard, held) -> {
            List<Parked> messages = new ArrayList<>(held.size());
            long earliest = Long.MAX_VALUE;
            for (Back b : held) {
                messages.add(new Parked(b.held().message(), b.untilMillis()));
                earliest = Math.min(earliest, b.untilMillis());
                b.held().target().handedBack(1);
            }
            CompletableFuture<Integer> call;
            try {
                call = store.parkAsync(shard.shard, shard.epoch, messages);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            long dueAt = earliest;
            CompletableFuture<?> done = call.whenComplete((moved, error) -> {
                if (error != null) {
                    LOG.warn(
                            "Could not hand {} held-back messages back to shard {}; their leases return them: {}",
                            messages.size(),
                            shard.shard,
                            error.toString());
                } else {
                    shard.woken(dueAt); // claimable again then
                }
                places.finish(shard, messages.size());
            });
            synchronized (pending) {
                pending.removeIf(CompletableFuture::isDone);
                pending.add(done);
            }
        });
    }

    /** Waits up to {@code millis} for the hand-backs sent so far; those not answered are returned by their leases. */
    void await(long millis) throws InterruptedException {
        List<CompletableFuture<?>> sent;
        synchronized (pending) {
            sent = new ArrayList<>(pending);
        }
        try {
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(millis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Not every held-back message was handed back at stop; their leases return them: {}", e.toString());
        }
    }
}
