package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.delivery.SharedBucket;
import io.delaybridge.bridge.store.SharedRates;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A delivery cap shared by every instance, on a real Redis (rate.lua). */
@ExtendWith(RealServersExtension.class)
class RedisSharedRatesIT {

    private static RedisDelayStore store(TestServers servers, String topic) {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(servers.redisUri(), topic, 1).withKeyPrefix(topic));
    }

    @Test
    void aBurstIsGrantedAtOnceThenTokensComeAtTheCap(TestServers servers) throws Exception {
        String topic = servers.unique("rate");
        try (RedisDelayStore store = store(servers, topic)) {
            SharedRates rates = store.sharedRates();

            SharedRates.Grant first = rates.take("t", 10, 5, 100).get(10, TimeUnit.SECONDS);
            assertEquals(5, first.granted(), "the burst, not more");
            assertTrue(first.waitMicros() > 0 && first.waitMicros() <= 100_000, "next in one interval: " + first);

            SharedRates.Grant second = rates.take("t", 10, 5, 100).get(10, TimeUnit.SECONDS);
            if (second.granted() == 0) {
                assertTrue(second.waitMicros() > 0 && second.waitMicros() <= 100_000, "" + second);
            }
            assertTrue(second.granted() <= 1, "at most what 10/s earned since: " + second);
            assertEquals(
                    5, rates.take("other", 10, 5, 100).get(10, TimeUnit.SECONDS).granted(), "caps per target");
        }
    }

    @Test
    void twoInstancesTakingAsFastAsTheyCanShareOneCap(TestServers servers) throws Exception {
        String topic = servers.unique("shared");
        double cap = 200;
        try (RedisDelayStore one = store(servers, topic);
                RedisDelayStore two = store(servers, topic)) {
            List<Thread> threads = new ArrayList<>();
            AtomicLong taken = new AtomicLong();
            List<AtomicLong> each = List.of(new AtomicLong(), new AtomicLong());
            long seconds = 3;
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            int i = 0;
            for (RedisDelayStore instance : List.of(one, two)) {
                SharedRates rates = instance.sharedRates();
                SharedBucket bucket = new SharedBucket(
                        "t",
                        cap,
                        want -> rates.take("t", cap, SharedBucket.batchFor(cap), want)
                                .thenApply(g -> new SharedBucket.Tokens(g.granted(), g.waitMicros() * 1_000)));
                AtomicLong mine = each.get(i++);
                Thread t = new Thread(() -> {
                    long now;
                    while ((now = System.nanoTime()) - end < 0) {
                        if (bucket.tryTake(now)) {
                            mine.incrementAndGet();
                            taken.incrementAndGet();
                        } else {
                            long wait = Math.max(100_000, Math.min(bucket.nanosUntil(now, 1), end - now));
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(seconds + 30));
            }
            long total = taken.get();
            // the guarantee: burst + cap * (w + 2 * expiry) over the w seconds, expiry = batch / cap
            double expiry = SharedBucket.batchFor(cap) / cap;
            double bound = SharedBucket.batchFor(cap) + cap * (seconds + 2 * expiry);
            assertTrue(total <= bound, total + " tokens in " + seconds + " s, at most " + bound);
            assertTrue(total >= cap * seconds / 2, "the cap is used, not starved: " + total);
            assertTrue(each.get(0).get() > 0 && each.get(1).get() > 0, "both instances took some: " + each);
        }
    }
}
