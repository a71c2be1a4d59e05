package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The outcome queue of {@link MessageSender}: what the release and producer threads report to the pump thread. */
class MessageSenderTest {

    @Test
    void outcomesAreDrainedInOrderAndTheFirstOfABurstSignals() {
        Wakeups wakeups = new Wakeups(Time.SYSTEM);
        MessageSender queue =
                new MessageSender(null, wakeups, null, null, null, 100, new RedisClock(Time.SYSTEM, () -> 0));
        OwnedShard shard = new OwnedShard(0, 0);
        Outcome first = Outcome.delivered(shard, null, 1);
        Outcome second = Outcome.delivered(shard, null, 2);
        queue.report(first);
        queue.report(second);

        long start = System.nanoTime();
        assertTrue(wakeups.sleep(TimeUnit.MINUTES.toNanos(1), () -> true));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the report signalled");
        assertEquals(List.of(first, second), queue.drainOutcomes());
        assertEquals(List.of(), queue.drainOutcomes());
    }
}
