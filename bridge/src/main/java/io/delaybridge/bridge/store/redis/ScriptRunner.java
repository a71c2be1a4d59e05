package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.ATTEMPTS;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.CANCELLED;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.DUE;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.EPOCH;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.FARGONE;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.FARIDX;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.INC;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.INFLIGHT;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.META;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.MSG;
import static io.delaybridge.bridge.store.redis.ScriptSignature.Key.POS;
import static io.delaybridge.bridge.store.redis.ScriptSignature.keyList;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs the store's Lua scripts (one file per atomic operation, under {@code lua/} beside this class) by EVALSHA.
 *
 * <p>Each script is read from the class path once; its SHA-1 is computed here, and {@link #loadAll} sends it with
 * {@code SCRIPT LOAD} (checking that Redis computed the same digest). Redis forgets its script cache on a restart or a
 * {@code SCRIPT FLUSH}: {@link #run} then gets {@code NOSCRIPT}, loads the script again and runs it once more (the
 * failed attempt changed nothing). Pipelined callers use {@link #dispatch} and handle {@code NOSCRIPT} themselves.
 *
 * <p>Thread-safe: it holds only the immutable sources and digests.
 */
public final class ScriptRunner {

    /** The store's scripts and how Lettuce decodes their replies. */
    public enum Script {
        INIT(
                "init.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(META), "shards", "incarnation", "created", "layout")),
        SCHEDULE(
                "schedule.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(
                                keyList(DUE, MSG, INFLIGHT, ATTEMPTS, INC, CANCELLED, EPOCH, FARIDX, FARGONE, POS),
                                "channel",
                                "incarnation",
                                "partition",
                                "publish",
                                "thaw",
                                "fence")
                        .withKeys("far")
                        .repeating(
                                "messages",
                                "member",
                                "due",
                                "header",
                                "value",
                                "timestamp",
                                "entry",
                                "hourkey",
                                "version",
                                "idkey",
                                "marks")),
        CANCEL(
                "cancel.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(
                                keyList(DUE, MSG, INFLIGHT, ATTEMPTS, INC, CANCELLED, FARIDX, FARGONE),
                                "member",
                                "incarnation",
                                "timestamp",
                                "forget")
                        .withKeys("ids")),
        ACQUIRE(
                "acquire.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(EPOCH, DUE, INFLIGHT, ATTEMPTS), "max", "channel", "publish")),
        CLAIM(
                "claim.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(DUE, MSG, INFLIGHT, ATTEMPTS, EPOCH), "epoch", "max", "lease", "lookahead")
                        .repeating("weights", "target", "weight")),
        ACK(
                "ack.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(keyList(INFLIGHT, MSG, ATTEMPTS, EPOCH, DUE), "epoch")
                        .repeating("members", "member")),
        SERIES_NEXT(
                "series_next.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(keyList(INFLIGHT, MSG, ATTEMPTS, EPOCH, DUE), "epoch", "channel", "publish")
                        .repeating("steps", "member", "next", "value")),
        RETRY(
                "retry.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(
                        keyList(DUE, INFLIGHT, ATTEMPTS, EPOCH), "epoch", "member", "retryAt", "channel", "publish")),
        RECLAIM(
                "reclaim.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(
                        keyList(DUE, INFLIGHT, ATTEMPTS, EPOCH), "epoch", "max", "channel", "publish", "all")),
        HANDBACK(
                "handback.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(keyList(DUE, INFLIGHT, ATTEMPTS, EPOCH), "epoch")
                        .repeating("triples", "member", "due", "at")),
        MARK(
                "mark.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(POS, INC), "incarnation")
                        .repeating("partitions", "partition", "expected", "next")),
        EXPRESS(
                "express.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(DUE, MSG, INFLIGHT, CANCELLED, INC, FARIDX), "incarnation")
                        .repeating("members", "member", "hour")),
        // far tier (FarIndex)
        FAR_THAWED(
                "far_thawed.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(keyList(FARIDX, EPOCH, FARGONE), "epoch", "hour", "length", "forget")
                        .withKeys("hour")),
        // delivery caps shared by every instance (RedisSharedRates)
        RATE(
                "rate.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(ScriptSignature.Key.RATE), "interval", "burst", "want")),
        // writers of a shard's exactly-once transactions (RedisTransactionWriters)
        WRITERS(
                "writers.lua",
                ScriptOutputType.MULTI,
                ScriptSignature.of(keyList(ScriptSignature.Key.WRITERS), "instance")
                        .repeating("fenced", "id")),
        // admin API (RedisMessageAdmin)
        RESCHEDULE(
                "reschedule.lua",
                ScriptOutputType.INTEGER,
                ScriptSignature.of(
                        keyList(DUE, INFLIGHT, INC), "member", "dueAt", "channel", "incarnation", "publish"));

        private final String file;
        private final ScriptOutputType output;
        private final ScriptSignature signature;

        Script(String file, ScriptOutputType output, ScriptSignature signature) {
            this.file = file;
            this.output = output;
            this.signature = signature;
        }

        public String file() {
            return file;
        }

        ScriptSignature signature() {
            return signature;
        }

        /** The script's KEYS on one shard, in the order its header lists them. */
        byte[][] keys(RedisKeys.ShardKeys shard) {
            return signature.keysOf(shard);
        }

        /** The script's ARGV, checked against its signature: the fixed arguments only. */
        byte[][] argv(byte[]... args) {
            return signature.argv(args);
        }

        /** The script's ARGV, checked against its signature: fixed arguments, then whole repeated entries. */
        byte[][] argvRepeated(byte[][] args) {
            return signature.argvRepeated(args);
        }
    }

    private static final String RESOURCE_DIR = "lua/";
    private static final String INCLUDE = "--#include ";

    private final Map<Script, String> sources = new EnumMap<>(Script.class);
    private final Map<Script, String> digests = new EnumMap<>(Script.class);

    public ScriptRunner() {
        for (Script script : Script.values()) {
            String source = withIncludes(read(script.file));
            sources.put(script, source);
            digests.put(script, sha1Hex(source));
        }
    }

    public String source(Script script) {
        return sources.get(script);
    }

    public String digest(Script script) {
        return digests.get(script);
    }

    /** Loads every script into Redis' script cache. */
    public CompletableFuture<Void> loadAll(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (Script script : Script.values()) {
            loads.add(load(commands, script));
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<String> load(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script) {
        return commands.scriptLoad(sources.get(script)).toCompletableFuture().thenApply(sha -> {
            if (!digests.get(script).equalsIgnoreCase(sha)) {
                throw new IllegalStateException("SCRIPT LOAD of " + script.file + " returned digest " + sha
                        + ", expected " + digests.get(script));
            }
            return sha;
        });
    }

    /** Sends EVALSHA without handling NOSCRIPT: for pipelines, which must decide what to run again. */
    public <T> RedisFuture<T> dispatch(
            RedisClusterAsyncCommands<byte[], byte[]> commands, Script script, byte[][] keys, byte[]... args) {
        return commands.evalsha(digests.get(script), script.output, keys, args);
    }

    /** Runs a script; if Redis forgot it, loads it again and runs it once more. */
    public <T> CompletableFuture<T> run(
            RedisClusterAsyncCommands<byte[], byte[]> commands, Script script, byte[][] keys, byte[]... args) {
        CompletableFuture<T> first =
                this.<T>dispatch(commands, script, keys, args).toCompletableFuture();
        return first.handle((value, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(value);
                    }
                    if (isNoScript(error)) {
                        return load(commands, script)
                                .thenCompose(sha -> this.<T>dispatch(commands, script, keys, args));
                    }
                    return CompletableFuture.<T>failedFuture(error);
                })
                .thenCompose(f -> f);
    }

    /** Whether a failure is Redis' {@code NOSCRIPT}: the script cache was flushed (restart, SCRIPT FLUSH). */
    public static boolean isNoScript(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof RedisNoScriptException;
    }

    /**
     * The script with each line {@code --#include <file>} replaced by that file of {@code lua/}: code several scripts
     * share (lanes.lua), in one place.
     */
    static String withIncludes(String source) {
        StringBuilder out = new StringBuilder(source.length());
        for (String line : source.split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                out.append(read(line.substring(INCLUDE.length()).trim()));
            } else {
                out.append(line).append('\n');
            }
        }
        return out.substring(0, out.length() - 1);
    }

    private static String read(String file) {
        String resource = RESOURCE_DIR + file;
        try (InputStream in = ScriptRunner.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Lua script " + resource, e);
        }
    }

    static String sha1Hex(String source) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(sha1.digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }
}
