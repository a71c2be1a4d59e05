package io.delaybridge.bridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.Time;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InFlightPlacesTest {

    @Test
    void placesAreCountedInTotalAndPerShard() {
        Wakeups wakeups = new Wakeups(Time.SYSTEM);
        InFlightPlaces places = new InFlightPlaces(10, wakeups);
        OwnedShard shard = new OwnedShard(1, 0);

        places.reserve(shard, 6);
        places.claimed(4);
        places.unreserve(shard, 2); // the claim came back with 4 of 6
        assertEquals(4, places.count());
        assertEquals(6, places.room());
        assertEquals(4, shard.outstanding.get());

        places.claimed(6);
        assertTrue(places.full());
        places.finish(shard, 3);
        assertFalse(places.full());
        assertEquals(7, places.count());
        assertEquals(1, shard.outstanding.get());
    }

    @Test
    void aFreedPlaceWakesWhoeverWaitsForIt() {
        Wakeups wakeups = new Wakeups(Time.SYSTEM);
        InFlightPlaces places = new InFlightPlaces(10, wakeups);
        OwnedShard shard = new OwnedShard(1, 0);
        places.reserve(shard, 1);
        places.claimed(1);
        places.ackSent();
        new Thread(() -> {
                    places.ackAnswered();
                    places.finish(shard, 1);
                })
                .start();
        assertTrue(wakeups.awaitUntilTrue(
                () -> shard.outstanding.get() == 0 && places.pendingAcks() == 0, TimeUnit.SECONDS.toNanos(10)));
        assertEquals(0, places.count());
    }
}
