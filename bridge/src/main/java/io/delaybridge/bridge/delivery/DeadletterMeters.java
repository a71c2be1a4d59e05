package io.delaybridge.bridge.delivery;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.delaybridge.schemas.ErrorCode;
import java.util.EnumMap;
import java.util.Map;

/** Deadletter records written, one meter per reason code ({@code delay.deadlettered.<CODE>}), intake and pump alike. */
public final class DeadletterMeters {

    public static final String PREFIX = "delay.deadlettered.";

    private final Map<ErrorCode, Meter> meters = new EnumMap<>(ErrorCode.class);

    public DeadletterMeters(MetricRegistry registry) {
        for (ErrorCode code : ErrorCode.values()) {
            meters.put(code, registry.meter(PREFIX + code.name()));
        }
    }

    public void mark(ErrorCode code) {
        meters.get(code).mark();
    }
}
