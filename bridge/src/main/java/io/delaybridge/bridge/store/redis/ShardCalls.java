package io.delaybridge.bridge.store.redis;

import static io.delaybridge.bridge.store.redis.RedisCalls.bytes;

import io.delaybridge.bridge.store.ClaimBatch;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.DelayStore.Parked;
import io.delaybridge.bridge.store.MessageRef;
import io.delaybridge.bridge.store.SeriesStep;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.redis.RedisKeys.ShardKeys;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pump's shard operations on Redis: take a shard ({@code acquire.lua}), claim, ack, retry, hand back and reclaim
 * its messages, each one script on the shared command connection, fenced by the shard's epoch. {@link
 * RedisDelayStore} delegates to it.
 */
final class ShardCalls {

    private static final Logger LOG = LoggerFactory.getLogger(ShardCalls.class);
    /**
     * The most in-flight messages one acquire hands back to the due set: Redis runs a script alone, and ~10,000
     * members take it a few ms. More than that are left in flight by an owner only with pump.maxInFlight raised.
     */
    static final int HANDOVER_LIMIT = 10_000;

    private final RedisConnections connections;
    private final ScriptRunner scripts;
    private final RedisKeys keys;
    private final ShardRouter router;
    private final byte[] publish;
    private final long awaitMillis;
    /** claim.lua's weights: target, weight, ... */
    private final byte[][] weights;

    ShardCalls(
            RedisConnections connections,
            ScriptRunner scripts,
            RedisKeys keys,
            ShardRouter router,
            byte[] publish,
            Map<String, Integer> laneWeights) {
        this.connections = connections;
        this.scripts = scripts;
        this.keys = keys;
        this.router = router;
        this.publish = publish;
        this.awaitMillis = connections.awaitMillis();
        List<byte[]> args = new ArrayList<>();
        laneWeights.forEach((target, weight) -> {
            args.add(bytes(target));
            args.add(bytes(Integer.toString(weight)));
        });
        this.weights = args.toArray(byte[][]::new);
    }

    private RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return connections.commands();
    }

    private <T> T await(CompletionStage<T> future, String operation) {
        return RedisCalls.await(future, operation, awaitMillis);
    }

    /** " on 127.0.0.1:7001" on a cluster, where several nodes could be meant; nothing otherwise. */
    private String where(ShardKeys k) {
        if (!connections.isCluster()) {
            return "";
        }
        try {
            return " on Redis " + connections.nodeOf(k.due());
        } catch (RuntimeException e) {
            return "";
        }
    }

    long acquire(int shard) {
        ShardKeys k = keys.shard(shard);
        List<Object> reply = await(
                scripts.<List<Object>>run(
                        commands(),
                        Script.ACQUIRE,
                        Script.ACQUIRE.keys(k),
                        Script.ACQUIRE.argv(bytes(Integer.toString(HANDOVER_LIMIT)), bytes(k.wakeChannel()), publish)),
                "acquire of shard " + shard);
        long epoch = ScriptCodes.check((Long) reply.get(0), "acquire", shard, -1);
        long handedOver = (Long) reply.get(1);
        if (handedOver > 0) {
            LOG.info(
                    "Shard {} taken with epoch {}: {} messages that earlier owners left in flight are due again now"
                            + "{}",
                    shard,
                    epoch,
                    handedOver,
                    (Long) reply.get(2) > 0 ? " (" + reply.get(2) + " more return when their leases end)" : "");
        }
        return epoch;
    }

    ClaimBatch claim(int shard, long epoch, int max, long leaseMillis) {
        return await(claimAsync(shard, epoch, max, leaseMillis, 0), "claim on shard " + shard);
    }

    CompletableFuture<ClaimBatch> claimAsync(int shard, long epoch, int max, long leaseMillis, long lookAheadMillis) {
        if (max < 1) {
            throw new IllegalArgumentException("claim of shard " + shard + ": max is " + max + ", must be >= 1");
        }
        if (leaseMillis < 1) {
            throw new IllegalArgumentException(
                    "claim of shard " + shard + ": leaseMillis is " + leaseMillis + ", must be >= 1");
        }
        if (lookAheadMillis < 0) {
            throw new IllegalArgumentException(
                    "claim of shard " + shard + ": lookAheadMillis is " + lookAheadMillis + ", must be >= 0");
        }
        ShardKeys k = keys.shard(shard);
        String operation = "claim on shard " + shard + where(k);
        return RedisCalls.translated(
                        scripts.<List<Object>>run(
                                commands(),
                                Script.CLAIM,
                                Script.CLAIM.keys(k),
                                Script.CLAIM.argvRepeated(claimArgs(epoch, max, leaseMillis, lookAheadMillis))),
                        operation)
                .thenApply(reply -> claimBatch(shard, epoch, reply));
    }

    private byte[][] claimArgs(long epoch, int max, long leaseMillis, long lookAheadMillis) {
        byte[][] args = new byte[4 + weights.length][];
        args[0] = bytes(Long.toString(epoch));
        args[1] = bytes(Integer.toString(max));
        args[2] = bytes(Long.toString(leaseMillis));
        args[3] = bytes(Long.toString(lookAheadMillis));
        System.arraycopy(weights, 0, args, 4, weights.length);
        return args;
    }

    private ClaimBatch claimBatch(int shard, long epoch, List<Object> reply) {
        long head = (Long) reply.get(0);
        if (reply.size() == 1) {
            ScriptCodes.check(head, "claim", shard, epoch);
        }
        long nextDue = (Long) reply.get(1);
        long dropped = (Long) reply.get(2);
        if (dropped > 0) {
            LOG.warn(
                    "claim on shard {} dropped {} due members without payload (the store was changed outside the"
                            + " bridge's scripts?)",
                    shard,
                    dropped);
        }
        List<ClaimedMessage> messages = new ArrayList<>((reply.size() - 3) / 4);
        for (int i = 3; i + 3 < reply.size(); i += 4) {
            byte[] member = (byte[]) reply.get(i);
            long dueAt = (Long) reply.get(i + 1);
            long earlierAttempts = (Long) reply.get(i + 2);
            byte[] value = (byte[]) reply.get(i + 3);
            messages.add(StoredValue.claimed(
                    new MessageRef(router.idOf(shard, member), member),
                    dueAt,
                    (int) earlierAttempts + 1,
                    value,
                    () -> router.naturalOrigin(shard, member)));
        }
        return new ClaimBatch(List.copyOf(messages), nextDue, head);
    }

    int ack(int shard, long epoch, List<MessageRef> delivered) {
        return await(ackAsync(shard, epoch, delivered), "ack on shard " + shard);
    }

    CompletableFuture<Integer> ackAsync(int shard, long epoch, List<MessageRef> delivered) {
        ShardKeys k = keys.shard(shard);
        byte[][] args = new byte[delivered.size() + 1][];
        args[0] = bytes(Long.toString(epoch));
        for (int i = 0; i < delivered.size(); i++) {
            args[i + 1] = delivered.get(i).member();
        }
        return RedisCalls.translated(
                        scripts.<Long>run(commands(), Script.ACK, Script.ACK.keys(k), Script.ACK.argvRepeated(args)),
                        "ack on shard " + shard + where(k))
                .thenApply(deleted -> (int) ScriptCodes.check(deleted, "ack", shard, epoch));
    }

    CompletableFuture<Integer> settleSeriesAsync(int shard, long epoch, List<SeriesStep> steps) {
        ShardKeys k = keys.shard(shard);
        byte[][] args = new byte[3 + steps.size() * 3][];
        args[0] = bytes(Long.toString(epoch));
        args[1] = bytes(k.wakeChannel());
        args[2] = publish;
        for (int i = 0; i < steps.size(); i++) {
            SeriesStep step = steps.get(i);
            args[3 + 3 * i] = step.ref().member();
            args[4 + 3 * i] = step.goesOn() ? bytes(Long.toString(step.nextDue())) : new byte[0];
            args[5 + 3 * i] = step.goesOn() ? step.value() : new byte[0];
        }
        return RedisCalls.translated(
                        scripts.<Long>run(
                                commands(),
                                Script.SERIES_NEXT,
                                Script.SERIES_NEXT.keys(k),
                                Script.SERIES_NEXT.argvRepeated(args)),
                        "series step on shard " + shard + where(k))
                .thenApply(settled -> (int) ScriptCodes.check(settled, "series step", shard, epoch));
    }

    boolean retry(int shard, long epoch, MessageRef message, long retryAtMillis) {
        ShardKeys k = keys.shard(shard);
        Long moved = await(
                scripts.run(
                        commands(),
                        Script.RETRY,
                        Script.RETRY.keys(k),
                        Script.RETRY.argv(
                                bytes(Long.toString(epoch)),
                                message.member(),
                                bytes(Long.toString(retryAtMillis)),
                                bytes(k.wakeChannel()),
                                publish)),
                "retry of message '" + message.id() + "' on shard " + shard);
        return ScriptCodes.check(moved, "retry", shard, epoch) == 1;
    }

    CompletableFuture<Integer> parkAsync(int shard, long epoch, List<Parked> messages) {
        ShardKeys k = keys.shard(shard);
        byte[][] args = new byte[messages.size() * 3 + 1][];
        args[0] = bytes(Long.toString(epoch));
        for (int i = 0; i < messages.size(); i++) {
            Parked parked = messages.get(i);
            args[3 * i + 1] = parked.message().ref().member();
            args[3 * i + 2] = bytes(Long.toString(parked.message().dueAt()));
            args[3 * i + 3] = bytes(Long.toString(parked.untilMillis()));
        }
        return RedisCalls.translated(
                        scripts.<Long>run(
                                commands(),
                                Script.HANDBACK,
                                Script.HANDBACK.keys(k),
                                Script.HANDBACK.argvRepeated(args)),
                        "hand-back on shard " + shard + where(k))
                .thenApply(moved -> (int) ScriptCodes.check(moved, "hand-back", shard, epoch));
    }

    /** Reclaims expired leases, or with {@code all} every in-flight message whatever its lease. */
    int reclaim(int shard, long epoch, int max, boolean all) {
        if (max < 1) {
            throw new IllegalArgumentException("reclaim of shard " + shard + ": max is " + max + ", must be >= 1");
        }
        ShardKeys k = keys.shard(shard);
        Long moved = await(
                scripts.run(
                        commands(),
                        Script.RECLAIM,
                        Script.RECLAIM.keys(k),
                        Script.RECLAIM.argv(
                                bytes(Long.toString(epoch)),
                                bytes(Integer.toString(max)),
                                bytes(k.wakeChannel()),
                                publish,
                                bytes(all ? "1" : "0"))),
                "reclaim on shard " + shard);
        return (int) ScriptCodes.check(moved, "reclaim", shard, epoch);
    }
}
