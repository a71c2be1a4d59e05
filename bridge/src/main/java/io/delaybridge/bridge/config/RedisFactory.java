package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.store.redis.RedisEndpoint;
import io.delaybridge.bridge.store.redis.RedisMode;
import io.delaybridge.bridge.store.redis.RedisStoreOptions;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.util.Duration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.net.URI;
import java.util.Map;
import java.util.function.IntSupplier;

/** The Redis side: settings under {@code redis:} (docs/configuration.md). */
@SettingsCheck
public class RedisFactory implements SettingsCheck.Checked {

    @NotEmpty(message = "is empty: set it to your Redis, e.g. redis://localhost:6379 (config.yml reads REDIS_URI)")
    @Setting("A Lettuce URI: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS, "
            + "`redis://host1:7000,host2:7001` for Redis Cluster seeds, `redis-sentinel://host:26379#mymaster` for "
            + "Sentinel.")
    private String uri = "redis://localhost:6379";

    @NotNull(message = "is empty: use auto, standalone, sentinel or cluster")
    @Setting("`auto`, `standalone`, `sentinel` or `cluster`; `auto` takes a `redis-sentinel://` URI for Sentinel and "
            + "asks the server whether it is a cluster node.")
    private RedisMode mode = RedisMode.AUTO;

    @NotNull
    @Pattern(
            regexp = "[A-Za-z0-9_.:-]{1,64}",
            message = "is \"${validatedValue}\": use 1 to 64 of the characters "
                    + "A-Z a-z 0-9 _ . : - (no braces: the shard's hash tag follows the prefix)")
    @Setting("The first part of every key (`dq:{delay-intake:7}:due`); an ACL can be limited to `dq:*`.")
    private String keyPrefix = "dq";

    @NotNull
    @Setting(value = "How long one Redis command may take.", min = "10ms")
    private Duration commandTimeout = Duration.seconds(5);

    @Setting(
            value = "Replicas that must acknowledge a batch (`WAIT`) before its offsets are committed; `0` relies on "
                    + "the primary's AOF.",
            min = "0",
            max = "16",
            why = "0 relies on the primary's AOF")
    private int waitReplicas = 0;

    @NotNull
    @Setting(value = "How long the `WAIT` may take before the batch is retried.", min = "1ms")
    private Duration waitTimeout = Duration.seconds(1);

    @Valid
    @NotNull
    private RedisTlsFactory tls = new RedisTlsFactory();

    @Override
    public void check(SettingsCheck.Problems problems) {
        if (uri != null && !uri.isEmpty() && !isRedisUri(uri)) {
            problems.add(
                    "uri",
                    "is \"" + withoutPassword(uri) + "\": not a Redis URI. Use redis://host:6379, "
                            + "rediss://host:6380 (TLS) or redis-sentinel://host:26379/0#mymaster");
        } else if (uri != null && mode != null) {
            boolean sentinelUri = uri.startsWith("redis-sentinel") || uri.startsWith("rediss-sentinel");
            if (mode == RedisMode.SENTINEL && !sentinelUri) {
                problems.add(
                        "mode",
                        "is sentinel but uri is not a Sentinel URI: use "
                                + "redis-sentinel://host:26379,host2:26379#mymaster, or set mode to auto");
            } else if (sentinelUri && (mode == RedisMode.STANDALONE || mode == RedisMode.CLUSTER)) {
                problems.add(
                        "mode", "is " + mode.setting() + " but uri names sentinels: set mode to sentinel or " + "auto");
            }
        }
        if (uri != null && tls != null && tls.configured() && !uri.startsWith("rediss")) {
            problems.add(
                    "tls",
                    "names certificate files but uri is \"" + withoutPassword(uri) + "\", which is"
                            + " not TLS: use rediss://host:port (rediss-sentinel:// for Sentinel), or leave redis.tls empty");
        }
    }

    private static boolean isRedisUri(String text) {
        try {
            String scheme = URI.create(text).getScheme();
            return scheme != null && scheme.startsWith("redis");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A configuration error is logged: never show the password in it. */
    static String withoutPassword(String text) {
        int at = text.lastIndexOf('@');
        int scheme = text.indexOf("://");
        return at > scheme && scheme >= 0 ? text.substring(0, scheme + 3) + "***" + text.substring(at) : text;
    }

    /** Connects to Redis, checks that it is fit to hold messages, and returns the store. */
    public RedisDelayStore build(String intakeTopic, int shardCount, Time time) {
        return build(intakeTopic, () -> shardCount, time);
    }

    /**
     * As {@link #build(String, int, Time)}, with the shard count asked once Redis is connected and checked: start-up counts
     * the intake's partitions meanwhile.
     */
    public RedisDelayStore build(String intakeTopic, IntSupplier shardCount, Time time) {
        return build(intakeTopic, shardCount, time, Map.of());
    }

    /** As {@link #build(String, IntSupplier, Time)}, the claims weighing the targets' lanes by {@code laneWeights}. */
    public RedisDelayStore build(
            String intakeTopic, IntSupplier shardCount, Time time, Map<String, Integer> laneWeights) {
        return RedisDelayStore.connect(
                new RedisStoreOptions(
                        new RedisEndpoint(uri, mode, tls.build(), commandTimeout.toJavaDuration()),
                        keyPrefix,
                        intakeTopic,
                        1, // a placeholder: the store takes its count from shardCount
                        waitReplicas,
                        waitTimeout.toJavaDuration(),
                        laneWeights),
                time,
                shardCount);
    }

    @JsonProperty
    public String getUri() {
        return uri;
    }

    @JsonProperty
    public void setUri(String uri) {
        this.uri = uri;
    }

    @JsonProperty
    public RedisMode getMode() {
        return mode;
    }

    @JsonProperty
    public void setMode(RedisMode mode) {
        this.mode = mode;
    }

    @JsonProperty
    public String getKeyPrefix() {
        return keyPrefix;
    }

    @JsonProperty
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    @JsonProperty
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    @JsonProperty
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    @JsonProperty
    public int getWaitReplicas() {
        return waitReplicas;
    }

    @JsonProperty
    public void setWaitReplicas(int waitReplicas) {
        this.waitReplicas = waitReplicas;
    }

    @JsonProperty
    public RedisTlsFactory getTls() {
        return tls;
    }

    @JsonProperty
    public void setTls(RedisTlsFactory tls) {
        this.tls = tls;
    }

    @JsonProperty
    public Duration getWaitTimeout() {
        return waitTimeout;
    }

    @JsonProperty
    public void setWaitTimeout(Duration waitTimeout) {
        this.waitTimeout = waitTimeout;
    }
}
