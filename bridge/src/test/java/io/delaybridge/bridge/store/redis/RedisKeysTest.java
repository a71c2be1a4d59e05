package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RedisKeysTest {

    private final RedisKeys keys = new RedisKeys("dq", "delay-intake", 8);

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void everyShardKeySharesTheShardsHashTag() {
        RedisKeys.ShardKeys k = keys.shard(7);
        assertEquals("dq:{delay-intake:7}:due", s(k.due()));
        assertEquals("dq:{delay-intake:7}:msg", s(k.msg()));
        assertEquals("dq:{delay-intake:7}:inflight", s(k.inflight()));
        assertEquals("dq:{delay-intake:7}:attempts", s(k.attempts()));
        assertEquals("dq:{delay-intake:7}:epoch", s(k.epoch()));
        assertEquals("dq:{delay-intake:7}:inc", s(k.incarnation()));
        assertEquals("dq:{delay-intake:7}:wake", k.wakeChannel());
        assertEquals("dq:{delay-intake:7}:writers", s(keys.writers(7)));
        assertEquals("dq:{delay-intake}:meta", s(keys.meta()));
        assertEquals("dq:{delay-intake}:meta", s(RedisKeys.metaKey("dq", "delay-intake")));
    }

    @Test
    void wakeChannelsMapBackToShards() {
        for (int shard = 0; shard < 8; shard++) {
            assertEquals(shard, keys.shardOfWakeChannel(keys.shard(shard).wakeChannel()));
        }
        assertEquals(-1, keys.shardOfWakeChannel("dq:{delay-intake:8}:wake"));
        assertEquals(-1, keys.shardOfWakeChannel("dq:{delay-intake:x}:wake"));
        assertEquals(-1, keys.shardOfWakeChannel("dq:{delay-intake:}:wake"));
        assertEquals(-1, keys.shardOfWakeChannel("other:{delay-intake:1}:wake"));
    }

    @Test
    void refusesShardsOutOfRangeAndPrefixesWithBraces() {
        assertThrows(IllegalArgumentException.class, () -> keys.shard(8));
        assertThrows(IllegalArgumentException.class, () -> keys.shard(-1));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new RedisKeys("d{q}", "delay-intake", 1));
        assertEquals(true, e.getMessage().contains("keyPrefix 'd{q}'"));
        assertThrows(IllegalArgumentException.class, () -> new RedisKeys("", "delay-intake", 1));
    }
}
