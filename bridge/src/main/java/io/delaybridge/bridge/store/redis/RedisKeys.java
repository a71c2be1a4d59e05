package io.delaybridge.bridge.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds every Redis key and channel name of the store; no other class spells one.
 *
 * <p>Per shard, every key carries the hash tag {@code {<intakeTopic>:<shard>}}, so a script that touches a shard's
 * keys runs on one Redis Cluster node:
 *
 * <pre>
 * &lt;prefix&gt;:{delay-intake:7}:due       zset  member -&gt; due time (epoch ms): messages stored before lanes
 * &lt;prefix&gt;:{delay-intake:7}:due:&lt;t&gt;   zset  member -&gt; due time (epoch ms): target t's lane (lanes.lua)
 * &lt;prefix&gt;:{delay-intake:7}:lanes     zset  target -&gt; due time of its lane's first message
 * &lt;prefix&gt;:{delay-intake:7}:msg       hash  member -&gt; stored value (origin header + envelope, see StoredValue)
 * &lt;prefix&gt;:{delay-intake:7}:inflight  zset  member -&gt; lease deadline (epoch ms)
 * &lt;prefix&gt;:{delay-intake:7}:attempts  hash  member -&gt; earlier delivery attempts (only for retried or reclaimed members)
 * &lt;prefix&gt;:{delay-intake:7}:epoch     string  the fencing epoch of the shard's current owner
 * &lt;prefix&gt;:{delay-intake:7}:inc       string  the store's incarnation, copied into the shard (data-loss marker)
 * &lt;prefix&gt;:{delay-intake:7}:wake      pub/sub channel: the shard's earliest due time moved earlier
 * &lt;prefix&gt;:{delay-intake:7}:probe     string  the health check's last write on the shard's node (cluster)
 * &lt;prefix&gt;:{delay-intake:7}:pos       hash  intake partition -&gt; position: every record below it is stored (mark.lua);
 *                                          far:&lt;partition&gt; -&gt; the highest offset whose own record went far (schedule.lua)
 * &lt;prefix&gt;:{delay-intake:7}:faridx    zset  far tier: hour -&gt; its start (epoch ms), the hours holding entries
 * &lt;prefix&gt;:{delay-intake:7}:far:&lt;h&gt;     string  far tier: 12-byte entries due in hour h (FarIndex)
 * &lt;prefix&gt;:{delay-intake:7}:farid:&lt;n&gt;   hash  far tier: explicit id's member -&gt; its far version (20 bytes)
 * &lt;prefix&gt;:{delay-intake:7}:fargone   zset  far tier: default id's member -&gt; timestamp its far records drop at
 *                                             (a cancel or replacement named the id from elsewhere)
 * &lt;prefix&gt;:{delay-intake:7}:writers   set  instances that may have written exactly-once transactions with the
 *                                             shard's records (writers.lua)
 * &lt;prefix&gt;:{delay-intake}:meta         hash  shards, incarnation, initialised (one per intake topic)
 * &lt;prefix&gt;:{delay-intake:rate:&lt;t&gt;}    string  target t's shared delivery cap: when its next token is free (rate.lua)
 * </pre>
 *
 * <p>The scripts derive the lane keys and the lanes index from the shard's due key (lanes.lua), as {@link #lane} and
 * {@link #lanes} spell them here.
 *
 * <p>Immutable; the byte arrays it hands out are shared and must not be modified.
 */
public final class RedisKeys {

    /** The keys and channel of one shard. */
    public record ShardKeys(
            int shard,
            byte[] due,
            byte[] msg,
            byte[] inflight,
            byte[] attempts,
            byte[] epoch,
            byte[] incarnation,
            byte[] cancelled,
            String wakeChannel,
            byte[] positions,
            byte[] farIndex,
            byte[] farGone) {}

    /**
     * How many {@code farid:<n>} hashes a shard spreads its explicit ids' far versions over: enough that each stays
     * under Redis' listpack limit of 128 fields (half the memory of a hashtable) up to ~1,000,000 far explicit ids a
     * shard (docs/redis-store.md, "The far tier").
     */
    static final int FAR_ID_HASHES = 16_384;

    private final String prefix;
    private final String intakeTopic;
    private final byte[] meta;
    private final ShardKeys[] shards;

    public RedisKeys(String prefix, String intakeTopic, int shardCount) {
        validatePrefix(prefix);
        this.prefix = prefix;
        this.intakeTopic = intakeTopic;
        this.meta = bytes(prefix + ":{" + intakeTopic + "}:meta");
        this.shards = new ShardKeys[shardCount];
        for (int shard = 0; shard < shardCount; shard++) {
            String base = prefix + ":{" + intakeTopic + ":" + shard + "}:";
            shards[shard] = new ShardKeys(
                    shard,
                    bytes(base + "due"),
                    bytes(base + "msg"),
                    bytes(base + "inflight"),
                    bytes(base + "attempts"),
                    bytes(base + "epoch"),
                    bytes(base + "inc"),
                    bytes(base + "cancelled"),
                    base + "wake",
                    bytes(base + "pos"),
                    bytes(base + "faridx"),
                    bytes(base + "fargone"));
        }
    }

    /** The meta hash key; it does not depend on the shard count, so it can be read before the count is known. */
    public static byte[] metaKey(String prefix, String intakeTopic) {
        validatePrefix(prefix);
        return bytes(prefix + ":{" + intakeTopic + "}:meta");
    }

    public byte[] meta() {
        return meta;
    }

    public int shardCount() {
        return shards.length;
    }

    public ShardKeys shard(int shard) {
        if (shard < 0 || shard >= shards.length) {
            throw new IllegalArgumentException(
                    "shard " + shard + " does not exist: the store has shards 0.." + (shards.length - 1));
        }
        return shards[shard];
    }

    /**
     * The state of {@code target}'s delivery cap that every instance shares (rate.lua): a key of its own, in a slot of
     * its own in a cluster, so that targets spread over the nodes.
     */
    public byte[] rate(String target) {
        return bytes(prefix + ":{" + intakeTopic + ":rate:" + target + "}");
    }

    /** {@code shard}'s lanes index (lanes.lua): target -&gt; the due time of its lane's first message. */
    public byte[] lanes(int shard) {
        shard(shard);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:lanes");
    }

    /** The lane of {@code target} in {@code shard}: its due messages (lanes.lua). */
    public byte[] lane(int shard, String target) {
        shard(shard);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:due:" + target);
    }

    /** The far tier's string of {@code shard}'s entries due in {@code hour} (epoch ms / 3,600,000). */
    public byte[] farHour(int shard, long hour) {
        shard(shard);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:far:" + hour);
    }

    /** The far tier's hash that holds the far version of the explicit id stored under {@code member}. */
    public byte[] farIds(int shard, byte[] member) {
        shard(shard);
        int h = Arrays.hashCode(member);
        int n = (h ^ (h >>> 16)) & (FAR_ID_HASHES - 1);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:farid:" + n);
    }

    /** The set of instances that may have written exactly-once transactions carrying {@code shard}'s records. */
    public byte[] writers(int shard) {
        shard(shard);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:writers");
    }

    /** The key the health check writes beside {@code shard}, to probe the node that holds it. */
    public byte[] probe(int shard) {
        shard(shard);
        return bytes(prefix + ":{" + intakeTopic + ":" + shard + "}:probe");
    }

    /**
     * The shard that holds intake partition {@code partition}'s position mark: the partition's own shard, or, for a
     * partition the store has no shard for (it was created with fewer shards), {@code partition mod shards}. The hash
     * field is the partition, so partitions sharing a shard do not collide.
     */
    public int homeShard(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("intake partition " + partition + " does not exist");
        }
        return partition % shards.length;
    }

    /** The shard whose wake channel this is, or -1. */
    public int shardOfWakeChannel(String channel) {
        String head = prefix + ":{" + intakeTopic + ":";
        String tail = "}:wake";
        if (!channel.startsWith(head) || !channel.endsWith(tail) || channel.length() <= head.length() + tail.length()) {
            return -1;
        }
        try {
            int shard = Integer.parseInt(channel.substring(head.length(), channel.length() - tail.length()));
            return shard >= 0 && shard < shards.length ? shard : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static void validatePrefix(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix '" + prefix + "' is not usable: it must be non-empty and"
                    + " contain no '{' or '}' (the store puts a Redis Cluster hash tag after it). Use e.g. 'dq'.");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
