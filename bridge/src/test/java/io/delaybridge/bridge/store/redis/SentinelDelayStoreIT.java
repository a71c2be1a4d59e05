package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.DelayStoreContractIT;
import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.testkit.RedisSentinels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The store contract on a master found through three real sentinels (one set-up per test class). */
class SentinelDelayStoreIT extends DelayStoreContractIT {

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static Path dir;
    static RedisSentinels sentinels;

    @BeforeAll
    static void startSentinels() throws IOException {
        dir = Files.createTempDirectory("sentinel-contract");
        sentinels = RedisSentinels.start(dir, "delay");
    }

    @AfterAll
    static void stopSentinels() throws IOException {
        if (sentinels != null) {
            sentinels.close();
        }
        io.delaybridge.testkit.TempDirs.deleteRecursively(dir);
    }

    @Override
    protected DelayStore newStore() {
        return RedisDelayStore.connect(
                RedisStoreOptions.of(sentinels.uri(), TOPIC, SHARDS).withKeyPrefix("sc" + PREFIXES.incrementAndGet()));
    }

    @Test
    void findsTheMasterThroughTheSentinels() {
        assertEquals(RedisMode.SENTINEL, ((RedisDelayStore) store).mode());
    }

    @Test
    void aMasterNameTheSentinelsDoNotKnowIsRefusedNamingTheOnesTheyDo() {
        String uri = sentinels.uri().replace("#delay", "#dealy");
        StoreConfigurationException e = assertThrows(
                StoreConfigurationException.class,
                () -> RedisDelayStore.connect(RedisStoreOptions.of(uri, TOPIC, SHARDS)));
        assertTrue(
                e.getMessage().contains("no master named 'dealy'")
                        && e.getMessage().contains("they monitor delay")
                        && e.getMessage().contains("after '#'"),
                e.getMessage());
    }
}
