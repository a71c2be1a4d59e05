package io.delaybridge.bridge.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.schemas.IntakeOrigin;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShardRouterTest {

    private final ShardRouter router = new ShardRouter("delay-intake", 8);

    @Test
    void defaultIdsLiveInTheirPartitionsShard() {
        assertEquals(0, router.shardOf("delay-intake-0-0"));
        assertEquals(7, router.shardOf("delay-intake-7-123456"));
        assertEquals(3, router.shardOf("delay-intake-3-" + Long.MAX_VALUE));
    }

    @Test
    void defaultIdMemberIsTheOffsetBigEndian() {
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 1, 2}, router.member("delay-intake-5-258"));
        assertArrayEquals(
                new byte[] {0x7F, -1, -1, -1, -1, -1, -1, -1}, router.member("delay-intake-5-" + Long.MAX_VALUE));
    }

    @Test
    void defaultIdMembersSortByOffsetAsRedisComparesThem() {
        // Redis orders members of equal score by memcmp of their bytes: unsigned, lexicographic
        long[] offsets = {0, 1, 255, 256, 65_535, 1L << 40, Long.MAX_VALUE};
        for (int i = 1; i < offsets.length; i++) {
            byte[] lower = router.member("delay-intake-1-" + offsets[i - 1]);
            byte[] higher = router.member("delay-intake-1-" + offsets[i]);
            assertTrue(Arrays.compareUnsigned(lower, higher) < 0, offsets[i - 1] + " < " + offsets[i]);
        }
        byte[] explicit = router.member("a");
        assertTrue(
                Arrays.compareUnsigned(router.member("delay-intake-1-" + Long.MAX_VALUE), explicit) < 0,
                "explicit ids sort after every offset");
    }

    @Test
    void explicitIdMemberIsMarkerAndUtf8() {
        byte[] member = router.member("order-42");
        assertEquals((byte) 0xFF, member[0]);
        assertEquals("order-42", new String(member, 1, member.length - 1, StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "delay-intake-0-0",
                "delay-intake-7-9",
                "delay-intake-3-" + Long.MAX_VALUE,
                "order-42",
                "",
                "delay-intake-01-5",
                "delay-intake-1-05",
                "delay-intake-8-5",
                "delay-intake-1-9223372036854775808",
                "delay-intake-1-99999999999999999999",
                "delay-intake--1-5",
                "delay-intake-1--5",
                "delay-intake-1-+5",
                "delay-intake-1-5-6",
                "delay-intake-1-",
                "delay-intake-1",
                "delay-intake-",
                "delay-intake",
                "other-topic-1-5",
                "delay-intake2-1-5",
                "Bestellung-ü-日本-🙂",
                "delay-intake-1-١٢", // Arabic-Indic digits are not decimal here
                "12345678",
                "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"
            })
    void everyIdRoundTrips(String id) {
        int shard = router.shardOf(id);
        assertTrue(shard >= 0 && shard < 8, "shard in range: " + shard);
        assertEquals(id, router.idOf(shard, router.member(id)));
        assertEquals(shard, router.shardOf(router.idOf(shard, router.member(id))));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "delay-intake-01-5",
                "delay-intake-1-05",
                "delay-intake-8-5",
                "delay-intake-1-9223372036854775808",
                "other-topic-1-5",
                "delay-intake-1-5-6",
                "Bestellung-ü-日本-🙂"
            })
    void nonDefaultIdsUseTheExplicitForm(String id) {
        byte[] member = router.member(id);
        assertEquals((byte) 0xFF, member[0]);
        assertArrayEquals(id.getBytes(StandardCharsets.UTF_8), Arrays.copyOfRange(member, 1, member.length));
    }

    @Test
    void onlyTheRecordADefaultIdNamesIsItsNaturalOrigin() {
        assertTrue(router.isNaturalOrigin("delay-intake-3-1042", new IntakeOrigin("delay-intake", 3, 1042)));
        assertTrue(router.isNaturalOrigin("delay-intake-0-0", new IntakeOrigin("delay-intake", 0, 0)));
        for (IntakeOrigin origin : List.of(
                new IntakeOrigin("delay-intake", 3, 1043),
                new IntakeOrigin("delay-intake", 4, 1042),
                new IntakeOrigin("delay-intake2", 3, 1042),
                new IntakeOrigin("other", 3, 1042),
                new IntakeOrigin("delay", 3, 1042))) {
            assertFalse(router.isNaturalOrigin("delay-intake-3-1042", origin), origin.toString());
        }
        // an explicit id names no record, even one whose text looks like a default id of another shard count
        assertFalse(router.isNaturalOrigin("order-42", new IntakeOrigin("delay-intake", 3, 1042)));
        assertFalse(router.isNaturalOrigin("delay-intake-9-1042", new IntakeOrigin("delay-intake", 9, 1042)));
    }

    @Test
    void explicitIdsRouteByCrc32OfUtf8() {
        // pinned values, computed outside Java (Python zlib.crc32): the routing must never change between releases,
        // or a cancel would look for its message in the wrong shard
        // CRC32("order-42") = 0x57F706DE, CRC32("customer-7") = 0x028C7948
        assertEquals(0x57F706DEL % 8, router.shardOf("order-42"));
        assertEquals(6, router.shardOf("order-42"));
        assertEquals(10, new ShardRouter("delay-intake", 12).shardOf("order-42"));
        assertEquals(8, new ShardRouter("delay-intake", 12).shardOf("customer-7"));
        assertEquals(0x57F706DEL % 1_000_003, new ShardRouter("delay-intake", 1_000_003).shardOf("order-42"));
        // an unsigned CRC above 2^31 must not turn negative
        assertTrue(0x57F706DEL < (1L << 31));
        String id = "Bestellung-ü-日本-🙂";
        assertEquals(router.shardOf(id), new ShardRouter("delay-intake", 8).shardOf(id));
    }

    @Test
    void unsignedCrcAboveTwoToThe31StaysInRange() {
        // find ids whose CRC32 has the top bit set and check the shard is still in range and equals the unsigned value
        int checked = 0;
        for (int i = 0; checked < 50; i++) {
            String id = "id-" + i;
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(id.getBytes(StandardCharsets.UTF_8));
            if (crc.getValue() >= (1L << 31)) {
                assertEquals((int) (crc.getValue() % 7), new ShardRouter("delay-intake", 7).shardOf(id));
                checked++;
            }
        }
    }

    @Test
    void explicitIdsSpreadOverAllShards() {
        Map<Integer, Integer> perShard = new HashMap<>();
        for (int i = 0; i < 8_000; i++) {
            perShard.merge(router.shardOf("customer-" + i), 1, Integer::sum);
        }
        assertEquals(8, perShard.size());
        perShard.values().forEach(n -> assertTrue(n > 800 && n < 1200, "balanced: " + perShard));
    }

    @Test
    void membersAreDistinctAcrossForms() {
        Set<String> seen = new HashSet<>();
        for (String id : List.of("delay-intake-1-5", "delay-intake-2-5", "delay-intake-1-6", "5", "\u0005")) {
            int shard = router.shardOf(id);
            seen.add(shard + ":" + Arrays.toString(router.member(id)));
        }
        assertEquals(5, seen.size());
    }

    @Test
    void naturalOriginIsTheRecordADefaultIdNames() {
        assertTrue(router.isNaturalOrigin("delay-intake-3-100", new IntakeOrigin("delay-intake", 3, 100)));
        assertFalse(router.isNaturalOrigin("delay-intake-3-100", new IntakeOrigin("delay-intake", 5, 100)));
        assertFalse(router.isNaturalOrigin("delay-intake-3-100", new IntakeOrigin("delay-intake", 3, 101)));
        assertFalse(router.isNaturalOrigin("order-42", new IntakeOrigin("delay-intake", 3, 100)));
        assertFalse(router.isNaturalOrigin("delay-intake-03-100", new IntakeOrigin("delay-intake", 3, 100)));
    }

    @Test
    void topicWithDigitsAndDashes() {
        ShardRouter r = new ShardRouter("t-1-2", 4);
        assertEquals(3, r.shardOf("t-1-2-3-4"));
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 4}, r.member("t-1-2-3-4"));
        assertEquals("t-1-2-3-4", r.idOf(3, r.member("t-1-2-3-4")));
    }

    @Test
    void rejectsMembersOfNoKnownForm() {
        assertThrows(IllegalArgumentException.class, () -> router.idOf(0, new byte[] {1, 2, 3}));
        assertThrows(IllegalArgumentException.class, () -> router.idOf(0, new byte[0]));
    }

    @Test
    void rejectsBadConstruction() {
        assertThrows(IllegalArgumentException.class, () -> new ShardRouter("delay-intake", 0));
        assertThrows(IllegalArgumentException.class, () -> new ShardRouter("", 1));
        assertThrows(NullPointerException.class, () -> new ShardRouter(null, 1));
    }
}
