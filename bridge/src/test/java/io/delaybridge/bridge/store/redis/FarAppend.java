package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.FARIDX;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.INC;
import static io.delaybridge.bridge.store.redis.ScriptSignature.keyList;

import io.delaybridge.bridge.store.FarEntry;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bare entries in the far tier's index, with no record behind their position: what tests of the thaw, the far views
 * and the index itself start from. {@code far_append.lua} (a test resource, never loaded by the service) appends them
 * in one call per shard; the service writes far entries only with their records, through {@code schedule.lua}.
 */
public final class FarAppend {

    /** far_append.lua's KEYS and ARGV, checked against its header by {@code ScriptSignatureTest}. */
    static final ScriptSignature SIGNATURE = ScriptSignature.of(keyList(FARIDX, INC), "incarnation")
            .withKeys("hours")
            .repeating("entries", "key", "hour", "entry");

    static final String SOURCE = read("lua/far_append.lua");

    private FarAppend() {}

    /** Appends the entries to their hours of {@code shard}, in one script call; returns how many were appended. */
    public static long append(RedisDelayStore store, int shard, List<FarEntry> entries) {
        RedisKeys keys = store.keys();
        Map<Long, Integer> keyIndex = new LinkedHashMap<>();
        List<byte[]> hourKeys = new ArrayList<>();
        byte[][] args = new byte[1 + 3 * entries.size()][];
        args[0] = store.incarnation().getBytes(StandardCharsets.UTF_8);
        int a = 1;
        for (FarEntry entry : entries) {
            long hour = entry.hour();
            Integer index = keyIndex.get(hour);
            if (index == null) {
                hourKeys.add(keys.farHour(shard, hour));
                index = 2 + hourKeys.size(); // KEYS[3] is the first hour
                keyIndex.put(hour, index);
            }
            args[a++] = RedisCalls.bytes(index);
            args[a++] = RedisCalls.bytes(hour);
            args[a++] = FarIndex.encode(entry);
        }
        Long appended = store.access()
                .await(
                        store.access()
                                .commands()
                                .eval(
                                        SOURCE,
                                        ScriptOutputType.INTEGER,
                                        SIGNATURE.keysOf(keys.shard(shard), hourKeys),
                                        SIGNATURE.argvRepeated(args)),
                        "far append of " + entries.size() + " entries on shard " + shard);
        return ScriptCodes.check(appended, "far append", shard, -1);
    }

    private static String read(String resource) {
        try (InputStream in = FarAppend.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the test class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
