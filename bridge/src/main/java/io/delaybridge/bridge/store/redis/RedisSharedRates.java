package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.SharedRates;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * {@link SharedRates} on the store's Redis: one key per capped target ({@link RedisKeys#rate}), taken from by
 * {@code rate.lua} (GCRA, on Redis' clock). One round trip per call; callers take tokens in batches
 * ({@code SharedBucket}).
 */
public final class RedisSharedRates implements SharedRates {

    private static final double MICROS_PER_SECOND = 1e6;

    private final StoreAccess access;

    /** On the store's command connection ({@link RedisDelayStore#sharedRates()}). */
    RedisSharedRates(StoreAccess access) {
        this.access = access;
    }

    @Override
    public CompletableFuture<Grant> take(String target, double perSecond, int burst, int want) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1 || want < 1) {
            throw new IllegalArgumentException(
                    "cap " + perSecond + "/s, burst " + burst + ", want " + want + ": each must be above 0");
        }
        byte[][] keys = Script.RATE.signature().keysGiven(access.keys().rate(target));
        byte[][] args = Script.RATE.argv(
                ascii(String.format(Locale.ROOT, "%.6f", MICROS_PER_SECOND / perSecond)),
                ascii(Integer.toString(burst)),
                ascii(Integer.toString(want)));
        return RedisCalls.translated(
                        access.scripts().<List<Object>>run(access.commands(), Script.RATE, keys, args),
                        "shared cap of " + target)
                .thenApply(reply -> {
                    long granted = (Long) reply.get(0);
                    if (reply.size() == 1) {
                        ScriptCodes.check(granted, "rate", -1, -1);
                    }
                    return new Grant((int) granted, (Long) reply.get(1));
                });
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
