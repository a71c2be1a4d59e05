package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.resource.ClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Small helpers the store's parts share: waiting for a reply, byte/string conversion, INFO parsing, closing
 * connections.
 */
final class RedisCalls {

    private static final Logger LOG = LoggerFactory.getLogger(RedisCalls.class);

    private RedisCalls() {}

    /** Waits for a reply at most {@code awaitMillis}; Lettuce's failures become the store's exceptions. */
    static <T> T await(CompletionStage<T> future, String operation, long awaitMillis) {
        try {
            return future.toCompletableFuture().get(awaitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), operation);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + ": no answer from Redis within " + awaitMillis + " ms", e);
        }
    }

    /** The future with Lettuce's failures turned into the store's exceptions. */
    static <T> CompletableFuture<T> translated(CompletableFuture<T> future, String operation) {
        return future.handle((value, error) -> {
            if (error != null) {
                throw RedisErrors.translate(error, operation);
            }
            return value;
        });
    }

    /** The failure a completed future holds, unwrapped, or null. */
    static Throwable failureOf(CompletableFuture<?> future) {
        if (!future.isCompletedExceptionally()) {
            return null;
        }
        try {
            future.join();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }

    static Map<String, String> parseInfo(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    static int majorVersion(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A long as the ASCII decimal Redis reads as a number, written straight into its bytes (the same bytes as {@code
     * Long.toString(value).getBytes(US_ASCII)}): the intake sends two per message (due time and timestamp), and
     * {@code Long.toString(n).getBytes()} makes a string and a copy for each.
     */
    static byte[] bytes(long value) {
        if (value < 0) {
            return Long.toString(value).getBytes(StandardCharsets.US_ASCII); // rare: not worth a second path
        }
        int digits = 1;
        for (long rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        byte[] out = new byte[digits];
        long rest = value;
        for (int i = digits - 1; i >= 0; i--) {
            out[i] = (byte) ('0' + (int) (rest % 10));
            rest /= 10;
        }
        return out;
    }

    static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * Closes a connection being opened once it is open (at once if it is); nothing if it failed to open or was closed
     * already (the wake-ups' connection, by its subscription). Without waiting: the connection may open on a Lettuce
     * I/O thread, which must not block.
     */
    static void closeWhenOpen(CompletableFuture<? extends StatefulConnection<?, ?>> connecting) {
        if (connecting != null) {
            connecting.whenComplete((connection, e) -> {
                if (connection != null && connection.isOpen()) {
                    connection.closeAsync();
                }
            });
        }
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.debug("Closing a Redis connection failed", e);
        }
    }

    static void shutdown(AbstractRedisClient client, ClientResources resources) {
        if (client != null) {
            try {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.debug("Redis client shutdown failed", e);
            }
        }
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
