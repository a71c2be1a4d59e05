package io.delaybridge.bench;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.TimeUnit;

/** Readings of Redis' {@code INFO} that the benchmark's memory figures need. */
final class RedisInfo {

    private RedisInfo() {}

    /** A numeric field of an {@code INFO} section, 0 if absent. */
    static long field(String info, String name) {
        return info.lines()
                .filter(l -> l.startsWith(name + ":"))
                .mapToLong(l -> Long.parseLong(l.substring(name.length() + 1).trim()))
                .findFirst()
                .orElse(0);
    }

    static long usedMemory(RedisCommands<String, String> redis) {
        return field(redis.info("memory"), "used_memory");
    }

    /**
     * used_memory without the buffers that come and go with the writes: the AOF buffer (and an AOF rewrite's, which
     * Redis starts by itself as the file grows) and the clients' query and output buffers.
     */
    static long dataMemory(RedisCommands<String, String> redis) {
        String info = redis.info("memory");
        return field(info, "used_memory") - field(info, "mem_aof_buffer") - field(info, "mem_clients_normal");
    }

    /**
     * Waits (up to maxWait) for an AOF rewrite to end: Redis starts one by itself each time the file doubles, and
     * until it ends used_memory holds a buffer of the writes made meanwhile. Returns false if one still runs.
     */
    static boolean awaitNoAofRewrite(RedisCommands<String, String> redis, long maxWait, TimeUnit unit)
            throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(maxWait);
        while (redis.info("persistence").contains("aof_rewrite_in_progress:1")) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }
}
