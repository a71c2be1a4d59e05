package io.delaybridge.bridge.pump;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Outcomes of sends, queued by the producer's callback threads for the pump thread. The pump is signalled once per
 * burst of outcomes, not once per outcome. Holds no connection.
 */
final class OutcomeQueue {

    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    /** Set when an outcome is queued and the pump has not been signalled for it. */
    private final AtomicBoolean signalled = new AtomicBoolean();

    private final Wakeups wakeups;

    OutcomeQueue(Wakeups wakeups) {
        this.wakeups = wakeups;
    }

    /** Queues an outcome; any thread. */
    void report(Outcome outcome) {
        outcomes.add(outcome);
        if (!signalled.getAndSet(true)) {
            wakeups.signal();
        }
    }

    /** Takes every outcome queued so far, oldest first; the next report signals again. */
    List<Outcome> drain() {
        signalled.set(false);
        List<Outcome> drained = new ArrayList<>();
        Outcome outcome;
        while ((outcome = outcomes.poll()) != null) {
            drained.add(outcome);
        }
        return drained;
    }
}
