package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.StoreConfigurationException;
import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteResult;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisErrorsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "OOM command not allowed when used memory > 'maxmemory'. script: abc, on @user_script:1.",
                "LOADING Redis is loading the dataset in memory",
                "BUSY Redis is busy running a script.",
                "READONLY You can't write against a read only replica.",
                "MASTERDOWN Link with MASTER is down",
                "TRYAGAIN Multiple keys request during rehashing of slot",
                "CLUSTERDOWN The cluster is down",
                "NOREPLICAS Not enough good replicas to write."
            })
    void redisErrorsThatPassAreTransient(String message) {
        StoreException e = RedisErrors.translate(new RedisCommandExecutionException(message), "schedule");
        assertInstanceOf(StoreUnavailableException.class, e);
        assertTrue(e.getMessage().startsWith("schedule"), e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void oomSaysWhatToDo() {
        StoreException e = RedisErrors.translate(
                new CompletionException(
                        new RedisCommandExecutionException("OOM command not allowed when used memory > 'maxmemory'.")),
                "write");
        assertInstanceOf(StoreUnavailableException.class, e);
        assertTrue(e.getMessage().contains("out of memory"), e.getMessage());
        assertTrue(e.getMessage().contains("maxmemory"), e.getMessage());
    }

    @Test
    void redis6WrapsTheErrorOfAScript() {
        String message = "ERR Error running script (call to f_a0dec7e9): @user_script:50: @user_script: 50:"
                + " -OOM command not allowed when used memory > 'maxmemory'.";
        StoreException e = RedisErrors.translate(new RedisCommandExecutionException(message), "schedule");
        assertInstanceOf(StoreUnavailableException.class, e);
        assertTrue(e.getMessage().contains("out of memory"), e.getMessage());
        assertEquals(
                StoreException.class,
                RedisErrors.translate(
                                new RedisCommandExecutionException(
                                        "ERR Error running script (call to f_1): @user_script:3: user_script:3: attempt to compare nil"),
                                "claim")
                        .getClass());
    }

    @Test
    void lostConnectionsAndTimeoutsAreTransient() {
        assertInstanceOf(
                StoreUnavailableException.class,
                RedisErrors.translate(
                        new RedisCommandTimeoutException("Command timed out after 5 second(s)"), "claim"));
        assertInstanceOf(
                StoreUnavailableException.class,
                RedisErrors.translate(new RedisConnectionException("Unable to connect"), "claim"));
        assertInstanceOf(
                StoreUnavailableException.class,
                RedisErrors.translate(new RedisException("Connection closed"), "claim"));
        assertInstanceOf(
                StoreUnavailableException.class,
                RedisErrors.translate(new ExecutionException(new IOException("Connection reset by peer")), "claim"));
        assertInstanceOf(
                StoreUnavailableException.class,
                RedisErrors.translate(new RedisLoadingException("LOADING Redis is loading"), "claim"));
    }

    @Test
    void authenticationErrorsAreConfiguration() {
        StoreException e = RedisErrors.translate(
                new RedisConnectionException(
                        "Unable to connect",
                        new RedisCommandExecutionException("WRONGPASS invalid username-password pair")),
                "connect");
        assertInstanceOf(StoreConfigurationException.class, e);
        assertTrue(e.getMessage().contains("redis.uri (REDIS_URI)"), e.getMessage());
        assertFalse(e.getMessage().contains("redisUri"), "redisUri is no setting: " + e.getMessage());
    }

    @Test
    void otherRedisErrorsArePermanent() {
        StoreException e = RedisErrors.translate(
                new RedisCommandExecutionException("WRONGTYPE Operation against a key holding the wrong kind of value"),
                "claim on shard 1");
        assertEquals(StoreException.class, e.getClass());
        assertTrue(e.getMessage().contains("claim on shard 1"));
    }

    @Test
    void storeExceptionsPassThrough() {
        StoreFencedException fenced = new StoreFencedException(1, 2, "claim");
        assertSame(fenced, RedisErrors.translate(new CompletionException(fenced), "x"));
    }

    @Test
    void scriptCodesBecomeResultsOrExceptions() {
        assertEquals(WriteResult.STORED, ScriptCodes.writeResult(1, "schedule", 0, "a"));
        assertEquals(WriteResult.REPLACED, ScriptCodes.writeResult(2, "schedule", 0, "a"));
        assertEquals(WriteResult.DUPLICATE, ScriptCodes.writeResult(3, "schedule", 0, "a"));
        assertEquals(WriteResult.CANCELLED, ScriptCodes.writeResult(4, "cancel", 0, "a"));
        assertEquals(WriteResult.NOT_FOUND, ScriptCodes.writeResult(5, "cancel", 0, "a"));
        assertEquals(WriteResult.CANCELLED, ScriptCodes.writeResult(6, "cancel", 0, "a"));
        assertEquals(WriteResult.ALREADY_CANCELLED, ScriptCodes.writeResult(9, "schedule", 0, "a"));
        assertEquals(WriteResult.SUPERSEDED, ScriptCodes.writeResult(10, "schedule", 0, "a"));
        StoreFencedException fenced =
                assertInstanceOf(StoreFencedException.class, ScriptCodes.failure(-1, "ack", 3, 7, null));
        assertEquals(3, fenced.shard());
        assertTrue(fenced.getMessage().contains("epoch 7"), fenced.getMessage());
        StoreException lost =
                assertInstanceOf(StoreDataLostException.class, ScriptCodes.failure(-3, "schedule", 2, -1, "order-42"));
        assertTrue(lost.getMessage().contains("'order-42'") && lost.getMessage().contains("shard 2"));
        assertEquals(
                StoreException.class,
                ScriptCodes.failure(-2, "claim", 0, 1, null).getClass());
        assertEquals(
                StoreException.class,
                ScriptCodes.failure(-99, "claim", 0, 1, null).getClass());
        assertEquals(5, ScriptCodes.check(5, "ack", 0, 1));
    }
}
