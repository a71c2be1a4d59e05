package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A claim that fails (Redis timed out, a connection dropped) must not make the pump forget that the shard is due. The
 * wake-up that made it due is used up by the claim, and no later wake-up comes while the message stays the shard's
 * earliest: a pump that forgot would sleep past the due time until the shard changed hands. The store is a real Redis;
 * a proxy fails one claim, as Redis would.
 */
@ExtendWith(RealServersExtension.class)
class PumpClaimFailureIT {

    @Test
    void aFailedClaimIsTriedAgainWithoutAnotherWakeUp(TestServers servers) throws Exception {
        String topic = servers.unique("cf");
        String target = topic + "-out";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()));
                RedisDelayStore redis = RedisDelayStore.connect(
                        RedisStoreOptions.of(servers.redisUri(), topic, 1).withKeyPrefix(topic))) {
            admin.createTopics(List.of(new NewTopic(target, Optional.of(1), Optional.empty())))
                    .all().get(30, TimeUnit.SECONDS);
            AtomicInteger claimsToFail = new AtomicInteger();
            AtomicInteger failedClaims = new AtomicInteger();
            DelayStore store = failingClaims(redis, claimsToFail, failedClaims);

            MockProducer<byte[], byte[]> producer =
                    new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
            MetricRegistry metrics = new MetricRegistry();
            // a long lease: the periodic reclaim (every half lease) must not be what rescues the message
            Pump pump = TestPumps.pump(store, producer, admin, new PumpSettings(100, 120_000, 1_000, 1_000),
                    topic + "-dlq", metrics);
            pump.start();
            try {
                pump.assign(List.of(0));
                redis.write(List.of(schedule(topic, target, 0, redis.now()))).get(10, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 1);

                // the shard is idle now; the next message wakes the pump, and its first claim fails
                claimsToFail.set(1);
                redis.write(List.of(schedule(topic, target, 1, redis.now()))).get(10, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
                assertEquals(1, failedClaims.get(), "the claim that was to fail was made");
                assertEquals(0, redis.stats(0).pending());
            } finally {
                pump.stop();
            }
        }
    }

    private static WriteOp.Schedule schedule(String topic, String target, long offset, long dueAt) {
        String origin = topic + "/0/" + offset;
        byte[] envelope = EnvelopeCodec.encode(
                new Envelope(target, null, origin, null, new byte[] {(byte) offset}, List.of()));
        return new WriteOp.Schedule(topic + "-0-" + offset, dueAt, origin, envelope);
    }

    /** The store, except that the next {@code toFail} claims fail as Redis' unavailability would. */
    private static DelayStore failingClaims(DelayStore store, AtomicInteger toFail, AtomicInteger failed) {
        return (DelayStore) Proxy.newProxyInstance(DelayStore.class.getClassLoader(), new Class<?>[] {DelayStore.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("claimAsync") && toFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        failed.incrementAndGet();
                        return CompletableFuture.failedFuture(
                                new StoreUnavailableException("claim on shard 0 timed out (injected)", null));
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
