package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import java.util.List;
import java.util.function.Function;

/**
 * The KEYS and ARGV of one Lua script, described once: every call builds its keys and checks its arguments here, and
 * {@code ScriptSignatureTest} compares each description with the header of its script (the {@code KEYS[n] name} and
 * {@code ARGV[n] name} lines, and {@code ARGV[n..] name} with its per-entry fields). Callers never place a key or an
 * argument by index.
 *
 * @param keys     the keys, in KEYS order
 * @param repeatedKeys the name of further keys the caller gives after them ({@code KEYS[n..]}), or null
 * @param args     the names of the fixed arguments, in ARGV order
 * @param repeated the name of the repeated group that follows the fixed arguments ({@code ARGV[n..]}), or null
 * @param fields   the arguments of one entry of the repeated group
 */
record ScriptSignature(List<Key> keys, String repeatedKeys, List<String> args, String repeated, List<String> fields) {

    /** A key a script takes, by its name in the script's header, and where {@link RedisKeys} spells it. */
    enum Key {
        DUE("due", ShardKeys::due),
        MSG("msg", ShardKeys::msg),
        INFLIGHT("inflight", ShardKeys::inflight),
        ATTEMPTS("attempts", ShardKeys::attempts),
        EPOCH("epoch", ShardKeys::epoch),
        INC("inc", ShardKeys::incarnation),
        CANCELLED("cancelled", ShardKeys::cancelled),
        POS("pos", ShardKeys::positions),
        FARIDX("faridx", ShardKeys::farIndex),
        FARGONE("fargone", ShardKeys::farGone),
        /** The store's meta hash: not a shard key, given by the caller. */
        META("meta", null),
        /** A delivery cap shared by every instance (RedisSharedRates): not a shard key, given by the caller. */
        RATE("rate", null),
        /** A shard's writers of exactly-once transactions (RedisTransactionWriters): given by the caller. */
        WRITERS("writers", null);

        private final String header;
        private final Function<ShardKeys, byte[]> ofShard;

        Key(String header, Function<ShardKeys, byte[]> ofShard) {
            this.header = header;
            this.ofShard = ofShard;
        }

        String header() {
            return header;
        }
    }

    static ScriptSignature of(Key[] keys, String... args) {
        return new ScriptSignature(List.of(keys), null, List.of(args), null, List.of());
    }

    static Key[] keyList(Key... keys) {
        return keys;
    }

    /** The same signature followed by a repeated group of {@code fields} per entry. */
    ScriptSignature repeating(String name, String... fields) {
        return new ScriptSignature(keys, repeatedKeys, args, name, List.of(fields));
    }

    /** The same signature with further keys, named {@code name}, given by the caller after the fixed ones. */
    ScriptSignature withKeys(String name) {
        return new ScriptSignature(keys, name, args, repeated, fields);
    }

    /** KEYS for a call on one shard, with the further keys the caller gives ({@link #repeatedKeys}). */
    byte[][] keysOf(ShardKeys shard, List<byte[]> further) {
        if (repeatedKeys == null) {
            throw new IllegalArgumentException("no further keys after " + keys);
        }
        byte[][] fixed = keysOf(shard);
        byte[][] all = new byte[fixed.length + further.size()][];
        System.arraycopy(fixed, 0, all, 0, fixed.length);
        for (int i = 0; i < further.size(); i++) {
            all[fixed.length + i] = further.get(i);
        }
        return all;
    }

    /** KEYS for a call on one shard. */
    byte[][] keysOf(ShardKeys shard) {
        byte[][] k = new byte[keys.size()][];
        for (int i = 0; i < k.length; i++) {
            Key key = keys.get(i);
            if (key.ofShard == null) {
                throw new IllegalStateException(key.header + " is not a shard key");
            }
            k[i] = key.ofShard.apply(shard);
        }
        return k;
    }

    /** KEYS given by the caller (a script on the meta hash), checked against the count. */
    byte[][] keysGiven(byte[]... given) {
        if (given.length != keys.size()) {
            throw new IllegalArgumentException("expected " + keys.size() + " keys " + keys + ", got " + given.length);
        }
        return given;
    }

    /** ARGV of a script without a repeated group: exactly the fixed arguments, in order. */
    byte[][] argv(byte[]... fixed) {
        if (repeated != null || fixed.length != args.size()) {
            throw new IllegalArgumentException("expected the arguments " + args
                    + (repeated != null ? " then " + repeated : "") + ", got " + fixed.length);
        }
        return fixed;
    }

    /** ARGV of a script with a repeated group: the fixed arguments, then whole entries of {@link #fields}. */
    byte[][] argvRepeated(byte[][] all) {
        int rest = all.length - args.size();
        if (repeated == null || rest < 0 || rest % fields.size() != 0) {
            throw new IllegalArgumentException("expected the arguments " + args + " then " + repeated + " " + fields
                    + " per entry, got " + all.length + " arguments");
        }
        return all;
    }

    /** Where the repeated group starts, 1-based as in the header. */
    int repeatedFrom() {
        return args.size() + 1;
    }
}
