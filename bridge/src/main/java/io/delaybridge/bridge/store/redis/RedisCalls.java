package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers the store's parts share: waiting for a reply, byte/string conversion, INFO parsing. */
final class RedisCalls {

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

    static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
