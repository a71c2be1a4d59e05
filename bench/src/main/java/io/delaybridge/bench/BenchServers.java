package io.delaybridge.bench;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongBiFunction;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A run's readings of Redis, on one connection to each server that holds data (the masters of a cluster): the time
 * spent per command, memory, pending and far records, and the clean-up between scenarios. {@link BenchRun} owns it.
 */
final class BenchServers implements AutoCloseable {

    private static final Pattern COMMAND_STAT = Pattern.compile("cmdstat_(\\w+):calls=(\\d+),usec=(\\d+)");

    private final RedisClient redisClient;
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private final List<RedisCommands<String, String>> servers = new ArrayList<>();

    BenchServers(List<String> uris) {
        this.redisClient = RedisClient.create();
        for (String server : uris) {
            StatefulRedisConnection<String, String> connection = redisClient.connect(RedisURI.create(server));
            connections.add(connection);
            servers.add(connection.sync());
        }
    }

    /** The first server that holds data (the single server). */
    RedisCommands<String, String> first() {
        return servers.get(0);
    }

    /**
     * Microseconds Redis spent in each command so far ({@code INFO commandstats}; commands a script runs count too),
     * summed over the servers that hold data.
     */
    Map<String, Long> commandMicros() {
        Map<String, Long> micros = new TreeMap<>();
        for (RedisCommands<String, String> server : servers) {
            Matcher m = COMMAND_STAT.matcher(server.info("commandstats"));
            while (m.find()) {
                micros.merge(m.group(1), Long.parseLong(m.group(3)), Long::sum);
                micros.merge(m.group(1) + " calls", Long.parseLong(m.group(2)), Long::sum);
            }
        }
        return micros;
    }

    /** "evalsha 14.2 (of it hmget 1.1, ...)": us per record of the costliest commands between two readings. */
    static String commandCost(Map<String, Long> before, Map<String, Long> after, long records) {
        ToLongFunction<String> delta = key -> after.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
        return after.keySet().stream()
                .filter(key -> !key.endsWith(" calls") && delta.applyAsLong(key) > 0)
                .sorted(Comparator.comparingLong(delta).reversed())
                .limit(10)
                .map(key -> String.format(
                        "%s %.2f (%.1f records a call)",
                        key,
                        delta.applyAsLong(key) / (double) Math.max(1, records),
                        records / (double) Math.max(1, delta.applyAsLong(key + " calls"))))
                .collect(Collectors.joining(", ", "us per record, scripts include the commands they call: ", ""));
    }

    long usedMemory() {
        return servers.stream().mapToLong(RedisInfo::usedMemory).sum();
    }

    /** The due sets' sizes (each shard's lanes), found on whichever server holds each shard. */
    long pending(String prefix, String topic) {
        return sumOverKeys(prefix + ":{" + topic + ":*}:due*", RedisCommands::zcard);
    }

    /** Records in the far tier: the 12-byte entries of every shard's far hours (docs/redis-store.md). */
    long farCount(String prefix, String topic) {
        return sumOverKeys(prefix + ":{" + topic + ":*}:far:*", RedisCommands::strlen) / 12;
    }

    /** Deletes every key under {@code prefix} (a scenario's store, once measured): frees Redis for the next. */
    long deleteKeys(String prefix) {
        return sumOverKeys(prefix + ":*", (server, key) -> server.unlink(key));
    }

    /** {@code size} of every key matching {@code pattern}, summed over the servers that hold data. */
    private long sumOverKeys(String pattern, ToLongBiFunction<RedisCommands<String, String>, String> size) {
        long total = 0;
        for (RedisCommands<String, String> server : servers) {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page =
                        server.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                for (String key : page.getKeys()) {
                    total += size.applyAsLong(server, key);
                }
                cursor = page;
            } while (!cursor.isFinished());
        }
        return total;
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisConnection::close);
        redisClient.shutdown();
    }
}
