package io.delaybridge.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RedisSlotsTest {

    @Test
    void crc16IsTheXmodemVariantRedisUses() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x31C3, RedisSlots.crc16(check, 0, check.length)); // the value in the Redis Cluster spec
    }

    @Test
    void slotsMatchWhatRedisAnswersForClusterKeyslot() {
        // CLUSTER KEYSLOT on a Redis 7.0.15 node
        assertEquals(12182, RedisSlots.slotOf("foo"));
        assertEquals(5061, RedisSlots.slotOf("bar"));
        assertEquals(0, RedisSlots.slotOf(""));
    }

    @Test
    void aHashTagIsHashedAlone() {
        assertEquals(RedisSlots.slotOf("user1000"), RedisSlots.slotOf("{user1000}.following"));
        assertEquals(RedisSlots.slotOf("delay-intake:7"), RedisSlots.slotOf("dq:{delay-intake:7}:due"));
        // only the first '{' counts, and an empty tag means the whole key
        assertEquals(RedisSlots.slotOf("bar"), RedisSlots.slotOf("foo{bar}{zap}"));
        assertEquals(crc("foo{}{bar}"), RedisSlots.slotOf("foo{}{bar}"));
        assertEquals(4015, RedisSlots.slotOf("foo{{bar}}zap")); // the tag is "{bar", as CLUSTER KEYSLOT says
        assertEquals(4015, RedisSlots.slotOf("{bar"));
    }

    private static int crc(String whole) {
        byte[] b = whole.getBytes(StandardCharsets.UTF_8);
        return RedisSlots.crc16(b, 0, b.length) & 16383;
    }
}
