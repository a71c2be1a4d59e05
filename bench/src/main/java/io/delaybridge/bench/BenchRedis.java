package io.delaybridge.bench;

import java.util.List;
import java.util.Map;

/**
 * The Redis one pass of the benchmark runs against: a single server, or a Redis Cluster whose masters each hold some
 * of the shards. {@code uri} is what the bridge gets as {@code REDIS_URI}; {@code servers} are the servers that hold
 * data ({@code redis://host:port}), whose {@code INFO} figures are summed; {@code pids} name the processes whose CPU
 * is measured (empty for an external Redis).
 *
 * @param label "" for the single server, else what prefixes this pass' result lines, e.g. {@code "cluster "}
 */
record BenchRedis(String label, String uri, List<String> servers, Map<String, Long> pids) {

    static BenchRedis single(String uri, long pid) {
        return new BenchRedis("", uri, List.of(uri), pid > 0 ? Map.of("redis", pid) : Map.of());
    }
}
