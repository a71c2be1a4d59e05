package io.delaybridge.bridge.pump;

import io.delaybridge.bridge.pump.Throttle.Held;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore;
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
 * The throttle's hand-backs: held-back messages returned to their shards' due sets at their own due time, no attempt
 * counted ({@link DelayStore#handBackAsync}), their in-flight places freed when Redis answered.
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
    void send(List<Held> back) {
        if (back.isEmpty()) {
            return;
        }
        Map<OwnedShard, List<Held>> byShard = new LinkedHashMap<>();
        for (Held held : back) {
            byShard.computeIfAbsent(held.shard(), s -> new ArrayList<>()).add(held);
        }
        byShard.forEach((shard, held) -> {
            List<ClaimedMessage> messages = new ArrayList<>(held.size());
            long earliest = Long.MAX_VALUE;
            for (Held h : held) {
                messages.add(h.message());
                earliest = Math.min(earliest, h.message().dueAt());
                h.target().handedBack(1);
            }
            CompletableFuture<Integer> call;
            try {
                call = store.handBackAsync(shard.shard, shard.epoch, messages);
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
                    shard.woken(dueAt); // due again: claimed when the gate opens
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
