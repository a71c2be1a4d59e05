package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A default id's own record is stored without the origin inside its envelope (the id names it: StoredValue), and
 * every read of the store gives the envelope back whole: a claim, an inspect, a scan. Explicit ids, and values that
 * an earlier bridge stored with the origin, keep theirs.
 */
@ExtendWith(RealServersExtension.class)
class NaturalOriginIT {

    private static final String TOPIC = RawAccessStore.TOPIC;

    private final TestServers servers;
    private RawAccessStore redis;
    private RedisDelayStore store;
    private StatefulRedisConnection<byte[], byte[]> raw;

    NaturalOriginIT(TestServers servers) {
        this.servers = servers;
    }

    @BeforeEach
    void open() {
        redis = new RawAccessStore(servers, "origin");
        store = redis.store;
        raw = redis.raw;
    }

    @AfterEach
    void close() {
        redis.close();
    }

    private static byte[] envelope(String origin) {
        return EnvelopeCodec.encode(
                new Envelope("orders.timeout", null, origin, "order-42".getBytes(), new byte[200], List.of()));
    }

    private byte[] storedValue(int shard, String id) {
        return raw.sync().hget(store.keys().shard(shard).msg(), store.router().member(id));
    }

    private static boolean contains(byte[] haystack, String needle) {
        return new String(haystack, StandardCharsets.ISO_8859_1).contains(needle);
    }

    private void write(WriteOp.Schedule schedule) throws Exception {
        List<WriteResult> results = store.write(List.of(schedule)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(WriteResult.STORED), results);
    }

    @Test
    void aDefaultIdsRecordIsStoredWithoutItsOriginAndEveryReadPutsItBack() throws Exception {
        IntakeOrigin at = new IntakeOrigin(TOPIC, 2, 1000000123L);
        String origin = at.toString();
        byte[] envelope = envelope(origin);
        long due = store.now() - 1;
        write(new WriteOp.Schedule(TOPIC + "-2-1000000123", due, at, envelope));

        byte[] stored = storedValue(2, TOPIC + "-2-1000000123");
        assertEquals(1 + envelope.length - origin.length(), stored.length, "origin header byte + envelope - origin");
        assertFalse(contains(stored, origin));

        StoredMessage inspected =
                store.messageAdmin().inspect(TOPIC + "-2-1000000123").orElseThrow();
        assertArrayEquals(envelope, inspected.envelope());
        List<StoredMessage> scanned = store.messageAdmin().scanDue(2, due, due, 0, 10);
        assertEquals(1, scanned.size());
        assertArrayEquals(envelope, scanned.get(0).envelope());

        List<ClaimedMessage> claimed =
                store.claim(2, store.acquire(2), 10, 30_000).messages();
        assertEquals(1, claimed.size());
        assertArrayEquals(StoredValue.envelope(stored), claimed.get(0).envelope(), "as stored, without its origin");
        assertEquals(origin, claimed.get(0).decode().origin(), "the one decode puts the origin back");
        assertArrayEquals(envelope, EnvelopeCodec.encode(claimed.get(0).decode()));
    }

    @Test
    void anExplicitIdKeepsItsOriginInTheEnvelope() throws Exception {
        IntakeOrigin at = new IntakeOrigin(TOPIC, 1, 77);
        String origin = at.toString();
        byte[] envelope = envelope(origin);
        write(new WriteOp.Schedule("order-42", store.now() - 1, at, envelope));

        byte[] stored = storedValue(store.router().shardOf("order-42"), "order-42");
        assertTrue(contains(StoredValue.envelope(stored), origin));
        int shard = store.router().shardOf("order-42");
        List<ClaimedMessage> claimed =
                store.claim(shard, store.acquire(shard), 10, 30_000).messages();
        assertArrayEquals(envelope, claimed.get(0).envelope());
    }

    @Test
    void aValueStoredWithItsOriginByAnEarlierBridgeReadsAsStored() throws Exception {
        // before 2026-11-23 the envelope of a default id's record kept its origin; it is read back as it is
        String origin = TOPIC + "/3/5";
        byte[] envelope = envelope(origin);
        RedisKeys.ShardKeys keys = store.keys().shard(3);
        byte[] member = store.router().member(TOPIC + "-3-5");
        raw.sync().hset(keys.msg(), member, StoredValue.encode(StoredValue.header(""), envelope));
        raw.sync().zadd(keys.due(), store.now() - 1, member);

        List<ClaimedMessage> claimed =
                store.claim(3, store.acquire(3), 10, 30_000).messages();
        assertEquals(1, claimed.size());
        assertArrayEquals(envelope, claimed.get(0).envelope());
        assertEquals(origin, claimed.get(0).decode().origin());
    }

    @Test
    void bytesThatAreNoEnvelopeAreStoredAsGiven() throws Exception {
        byte[] opaque = "not an envelope".getBytes(StandardCharsets.UTF_8);
        write(new WriteOp.Schedule(TOPIC + "-0-9", store.now() - 1, new IntakeOrigin(TOPIC, 0, 9), opaque));

        assertArrayEquals(opaque, StoredValue.envelope(storedValue(0, TOPIC + "-0-9")));
        List<ClaimedMessage> claimed =
                store.claim(0, store.acquire(0), 10, 30_000).messages();
        assertArrayEquals(opaque, claimed.get(0).envelope());
    }
}
