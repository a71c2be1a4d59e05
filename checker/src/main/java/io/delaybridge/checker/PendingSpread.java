package io.delaybridge.checker;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Samples, while a campaign runs, how many messages each Redis server that holds shards keeps (in the due and the
 * in-flight sets: stored, not yet delivered), so the report shows whether a cluster's masters share the load. One
 * server for a standalone Redis. A bridge that lags holds its messages in flight, its due sets nearly empty.
 */
final class PendingSpread implements Runnable, AutoCloseable {

    /** The pending messages and the shards holding any, per server ({@code host:port}), at one moment. */
    record Sample(Map<String, Long> pendingByServer, Map<String, Integer> shardsByServer) {
        long total() {
            return pendingByServer.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static final Duration INTERVAL = Duration.ofSeconds(1);

    private final Supplier<List<String>> servers;
    private final String keyPattern;
    private final RedisClient client = RedisClient.create();
    private final Map<String, StatefulRedisConnection<String, String>> connections = new HashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private volatile boolean stopped;

    PendingSpread(Supplier<List<String>> servers, String keyPrefix, String intakeTopic) {
        this.servers = servers;
        this.keyPattern = keyPrefix + ":{" + intakeTopic + ":*}:*";
    }

    @Override
    public void run() {
        while (!stopped && !Thread.currentThread().isInterrupted()) {
            try {
                Sample sample = sample();
                synchronized (this) {
                    samples.add(sample);
                }
            } catch (RuntimeException e) {
                // a server is down (a fault): skip this sample
                connections.values().forEach(StatefulRedisConnection::close);
                connections.clear();
            }
            try {
                Thread.sleep(INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One sample now: the sum of the due and in-flight sets' sizes on each server. */
    Sample sample() {
        Map<String, Long> pending = new LinkedHashMap<>();
        Map<String, Integer> shards = new LinkedHashMap<>();
        for (String uri : servers.get()) {
            RedisCommands<String, String> redis = connections
                    .computeIfAbsent(uri, u -> {
                        RedisURI parsed = RedisURI.create(u);
                        parsed.setTimeout(Duration.ofSeconds(2));
                        return client.connect(parsed);
                    })
                    .sync();
            long count = 0;
            int keys = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page =
                        redis.scan(cursor, ScanArgs.Builder.matches(keyPattern).limit(1000));
                for (String key : page.getKeys()) {
                    if (key.endsWith(":due")) {
                        count += redis.zcard(key);
                        keys++;
                    } else if (key.endsWith(":inflight") || key.contains("}:due:")) {
                        count += redis.zcard(key);
                    }
                }
                cursor = page;
            } while (!cursor.isFinished());
            pending.put(uri.replace("redis://", ""), count);
            shards.put(uri.replace("redis://", ""), keys);
        }
        return new Sample(pending, shards);
    }

    /** Every sample taken so far. */
    synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /**
     * For each server: its share of the pending messages summed over all samples, its largest count, and in how
     * many samples it held any, and the most shards it held pending messages of; e.g. {@code 127.0.0.1:7000 34%
     * (max 1,204, pending in 57 of 60 samples, up to 6 shards)}.
     */
    static List<String> describe(List<Sample> samples) {
        Map<String, long[]> byServer = new LinkedHashMap<>(); // sum, max, samples with any, most shards
        long all = 0;
        for (Sample s : samples) {
            for (Map.Entry<String, Long> e : s.pendingByServer().entrySet()) {
                long[] a = byServer.computeIfAbsent(e.getKey(), k -> new long[4]);
                a[3] = Math.max(a[3], s.shardsByServer().getOrDefault(e.getKey(), 0));
                a[0] += e.getValue();
                a[1] = Math.max(a[1], e.getValue());
                a[2] += e.getValue() > 0 ? 1 : 0;
                all += e.getValue();
            }
        }
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, long[]> e : byServer.entrySet()) {
            long[] a = e.getValue();
            lines.add(String.format(
                    "%s %d%% (max %,d, pending in %d of %d samples, up to %d shards)",
                    e.getKey(), all == 0 ? 0 : Math.round(100.0 * a[0] / all), a[1], a[2], samples.size(), a[3]));
        }
        return lines;
    }

    /** Call after the sampling thread ended. */
    @Override
    public void close() {
        stopped = true;
        connections.values().forEach(StatefulRedisConnection::close);
        client.shutdown();
    }
}
