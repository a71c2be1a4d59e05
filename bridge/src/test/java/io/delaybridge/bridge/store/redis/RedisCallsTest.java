package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link RedisCalls#bytes(long)}: the fast decimal the scripts read as numbers. */
class RedisCallsTest {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 9, 10, 99, 100, 1_763_856_000_000L, Long.MAX_VALUE, -1, -10, Long.MIN_VALUE})
    void writesWhatLongToStringWrites(long value) {
        assertArrayEquals(Long.toString(value).getBytes(StandardCharsets.US_ASCII), RedisCalls.bytes(value));
    }

    @Test
    void agreesWithLongToStringAcrossMagnitudes() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 10_000; i++) {
            long value = random.nextLong() >>> random.nextInt(64);
            assertArrayEquals(
                    Long.toString(value).getBytes(StandardCharsets.US_ASCII),
                    RedisCalls.bytes(value),
                    Long.toString(value));
        }
    }
}
