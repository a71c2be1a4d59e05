package io.delaybridge.bridge.release;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.time.RedisClock;
import io.delaybridge.bridge.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The release thread on its own, with a made-up Redis clock: a reading of "Redis time 1,000,000 ms" that arrived now.
 * Due times are then offsets from now, and the thread's sends are timed on the monotonic clock.
 */
class DueReleaserTest {

    private static final long REDIS_NOW = 1_000_000;

    private record Sent(String id, long atNanos) {}

    private final RedisClock redisClock = new RedisClock(Time.SYSTEM, () -> {
        throw new AssertionError("the release thread never reads Redis' clock itself");
    });

    /** Redis' clock read {@link #REDIS_NOW}, answered at monotonic {@code arrivedNanos}. */
    private void observe(long arrivedNanos) {
        redisClock.observe(REDIS_NOW, arrivedNanos, arrivedNanos);
    }

    @Test
    void sendsEachMessageOnceItsDueTimeIsCertainEarliestFirst() throws Exception {
        List<Sent> sent = new CopyOnWriteArrayList<>();
        DueReleaser<ClaimedMessage> releaser = new DueReleaser<>(
                m -> sent.add(new Sent(m.ref().id(), System.nanoTime())),
                ClaimedMessage::dueAt,
                500,
                redisClock,
                Time.SYSTEM,
                "test-release");
        releaser.start();
        try {
            long readAt = System.nanoTime();
            observe(readAt);
            releaser.hold(
                    List.of(message("c", REDIS_NOW + 120), message("a", REDIS_NOW - 5), message("b", REDIS_NOW + 60)));
            await().atMost(Duration.ofSeconds(5)).until(() -> sent.size() == 3);

            assertEquals(List.of("a", "b", "c"), sent.stream().map(Sent::id).toList(), "earliest due first");
            assertTrue(sent.get(1).atNanos() - readAt >= TimeUnit.MILLISECONDS.toNanos(60), "b not before its due");
            assertTrue(sent.get(2).atNanos() - readAt >= TimeUnit.MILLISECONDS.toNanos(120), "c not before its due");
        } finally {
            releaser.stop();
        }
    }

    @Test
    void aSenderThatThrowsDoesNotEndTheThread() throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        DueReleaser<ClaimedMessage> releaser = new DueReleaser<>(
                m -> {
                    if (m.ref().id().equals("bad")) {
                        throw new IllegalStateException("injected");
                    }
                    sent.add(m.ref().id());
                },
                ClaimedMessage::dueAt,
                500,
                redisClock,
                Time.SYSTEM,
                "test-release");
        releaser.start();
        try {
            observe(System.nanoTime());
            releaser.hold(List.of(message("bad", REDIS_NOW - 1)));
            releaser.hold(List.of(message("good", REDIS_NOW + 20)));
            await().atMost(Duration.ofSeconds(5)).until(() -> sent.equals(List.of("good")));
        } finally {
            releaser.stop();
        }
    }

    @Test
    void stopSendsWhatIsHeldAtItsDueTimeFirst() throws Exception {
        List<Sent> sent = new CopyOnWriteArrayList<>();
        DueReleaser<ClaimedMessage> releaser = new DueReleaser<>(
                m -> sent.add(new Sent(m.ref().id(), System.nanoTime())),
                ClaimedMessage::dueAt,
                500,
                redisClock,
                Time.SYSTEM,
                "test-release");
        releaser.start();
        long readAt = System.nanoTime();
        observe(readAt);
        releaser.hold(List.of(message("held", REDIS_NOW + 200)));
        releaser.stop();

        assertEquals(1, sent.size(), "sent before stop returned");
        assertTrue(sent.get(0).atNanos() - readAt >= TimeUnit.MILLISECONDS.toNanos(200), "not before its due time");
    }

    @Test
    void withoutAReadingOfRedisClockNothingNotYetKnownDueIsSent() throws Exception {
        List<String> sent = new CopyOnWriteArrayList<>();
        DueReleaser<ClaimedMessage> releaser = new DueReleaser<>(
                m -> sent.add(m.ref().id()), ClaimedMessage::dueAt, 100, redisClock, Time.SYSTEM, "test-release");
        releaser.start();
        releaser.hold(List.of(message("unknown", REDIS_NOW)));
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> true);
        assertTrue(sent.isEmpty(), "no reading, no proof that it is due");
        observe(System.nanoTime());
        await().atMost(Duration.ofSeconds(5)).until(() -> sent.equals(List.of("unknown")));
        releaser.stop();
    }

    private static ClaimedMessage message(String id, long dueAt) {
        return new ClaimedMessage(new MessageRef(id, id.getBytes()), dueAt, 0, new byte[0]);
    }
}
