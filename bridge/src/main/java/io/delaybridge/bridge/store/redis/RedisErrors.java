package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns what Lettuce throws into the store's exceptions, so that the type tells the caller whether to retry.
 *
 * <ul>
 *   <li>{@link StoreUnavailableException} (transient): timeouts, lost connections, and the Redis errors that pass
 *       with time or operator action without changing the bridge: {@code OOM} (noeviction at maxmemory), {@code
 *       LOADING}, {@code BUSY}, {@code READONLY} and {@code MASTERDOWN} (during a fail-over), {@code TRYAGAIN},
 *       {@code CLUSTERDOWN}, {@code NOREPLICAS}.
 *   <li>{@link StoreConfigurationException}: authentication and permission errors ({@code NOAUTH}, {@code
 *       WRONGPASS}, {@code NOPERM}).
 *   <li>{@link StoreException} for everything else (e.g. {@code WRONGTYPE}: another application writes under the key
 *       prefix; a script error): a bug or a conflict that retrying does not fix.
 * </ul>
 */
public final class RedisErrors {

    private static final String[] TRANSIENT_PREFIXES = {
        "OOM", "LOADING", "BUSY", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS"
    };
    private static final String[] AUTH_PREFIXES = {"NOAUTH", "WRONGPASS", "NOPERM"};

    private RedisErrors() {}

    /** The store exception for a failure of {@code operation} ({@code "claim on shard 3"}, ...). */
    public static StoreException translate(Throwable error, String operation) {
        Throwable t = unwrap(error);
        if (t instanceof StoreException store) {
            return store;
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof RedisCommandExecutionException) {
                String upper = String.valueOf(c.getMessage()).toUpperCase(Locale.ROOT);
                for (String prefix : AUTH_PREFIXES) {
                    if (upper.startsWith(prefix)) {
                        return new StoreConfigurationException(
                                operation + " refused by Redis: " + c.getMessage()
                                        + ". Check the user and password in redis.uri (REDIS_URI) and the user's ACL.",
                                t);
                    }
                }
            }
        }
        String message = String.valueOf(t.getMessage());
        if (t instanceof RedisCommandTimeoutException) {
            return new StoreUnavailableException(
                    operation + " timed out: Redis did not answer in time (" + message + "). Retry with backoff.", t);
        }
        if (t instanceof RedisCommandExecutionException) {
            String upper = innerError(message).toUpperCase(Locale.ROOT);
            if (upper.startsWith("OOM")) {
                return new StoreUnavailableException(
                        operation + " refused: Redis is out of memory (maxmemory reached,"
                                + " maxmemory-policy noeviction): " + message
                                + ". Delivering due messages frees memory;"
                                + " raise maxmemory if it persists.",
                        t);
            }
            for (String prefix : TRANSIENT_PREFIXES) {
                if (upper.startsWith(prefix)) {
                    return new StoreUnavailableException(
                            operation + " refused by Redis for now: " + message + ". Retry with backoff.", t);
                }
            }
            return new StoreException(operation + " failed in Redis: " + message, t);
        }
        if (t instanceof RedisConnectionException || t instanceof IOException) {
            return new StoreUnavailableException(
                    operation + " failed: no connection to Redis (" + message + "). Retry with backoff.", t);
        }
        if (t instanceof RedisException) {
            // "Connection closed", "Currently not connected. Commands are rejected.", reset by peer, ...
            return new StoreUnavailableException(operation + " failed: " + message + ". Retry with backoff.", t);
        }
        return new StoreException(operation + " failed: " + t, t);
    }

    /**
     * The error a script ran into. Redis 7 passes it on as it is ({@code OOM command not allowed ... script: ...});
     * Redis 6 wraps it: {@code ERR Error running script (call to f_...): @user_script:50: @user_script: 50: -OOM
     * command not allowed ...}.
     */
    static String innerError(String message) {
        if (message.startsWith("ERR Error running script")) {
            int dash = message.indexOf(": -");
            if (dash >= 0) {
                return message.substring(dash + 3);
            }
        }
        return message;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
