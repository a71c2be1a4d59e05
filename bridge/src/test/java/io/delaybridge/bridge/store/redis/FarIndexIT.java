package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The far tier's index on a real Redis: entries by due hour, read in intake order, removed under the epoch. */
class FarIndexIT {

    private static final long HOUR = FarIndex.HOUR_MILLIS;

    @TempDir
    Path dir;

    @Test
    void entriesAreKeptByDueHourReadInIntakeOrderAndRemovedOnlyByTheOwner() {
        try (RedisServer redis = RedisServer.start(dir, 0, List.of());
                RedisDelayStore store = RedisDelayStore.connect(RedisStoreOptions.of(redis.uri(), "delay-intake", 2)
                        .withCommandTimeout(Duration.ofSeconds(5)))) {
            FarIndex far = (FarIndex) store.far();
            long h = store.now() / HOUR + 48;
            FarEntry late = new FarEntry(1, 7, h * HOUR + 5_000);
            FarEntry early = new FarEntry(0, 9, h * HOUR + 10);
            FarEntry nextHour = new FarEntry(0, 3, (h + 1) * HOUR + 1);
            FarEntry widest = new FarEntry(65_535, (1L << 48) - 1, h * HOUR + HOUR - 1);
            assertEquals(4, FarAppend.append(store, 0, List.of(late, early, nextHour, widest)));
            assertEquals(4, far.farCount(0));
            assertEquals(0, far.farCount(1));
            assertEquals(List.of(h), far.farHours(0, h * HOUR));
            assertEquals(List.of(h, h + 1), far.farHours(0, (h + 1) * HOUR));

            FarHour read = far.readFar(0, h, 0);
            assertEquals(List.of(early, late, widest), read.entries(), "sorted by partition and offset, due kept");
            assertEquals(36, read.length());

            long epoch = store.acquire(0);
            assertThrows(StoreFencedException.class, () -> far.farThawed(0, epoch + 1, h, read.length(), 0));
            FarEntry meanwhile = new FarEntry(2, 1, h * HOUR + 20);
            FarAppend.append(store, 0, List.of(meanwhile));
            assertEquals(48, far.farThawed(0, epoch, h, read.length(), 0), "appended since the read: the hour stays");
            FarHour rest = far.readFar(0, h, read.length());
            assertEquals(List.of(meanwhile), rest.entries());
            assertEquals(0, far.farThawed(0, epoch, h, rest.length(), 0));
            assertEquals(List.of(h + 1), far.farHours(0, Long.MAX_VALUE));
            assertEquals(1, far.farCount(0));
            assertEquals(List.of(), far.readFar(0, h, 0).entries(), "the hour's string is gone");

            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                connection.sync().del(store.keys().shard(1).incarnation()); // shard 1 lost its data
            } finally {
                client.shutdown();
            }
            assertThrows(StoreDataLostException.class, () -> FarAppend.append(store, 1, List.of(late)));
            assertEquals(0, far.farCount(1), "nothing written over a lost shard");
        }
    }

    @Test
    void anEntryOutsideItsBytesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new FarEntry(65_536, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new FarEntry(0, 1L << 48, 0));
        FarEntry entry = new FarEntry(3, 1L << 40, 5 * HOUR + 123);
        assertEquals(12, FarIndex.encode(entry).length);
        assertEquals(5, entry.hour());
    }
}
