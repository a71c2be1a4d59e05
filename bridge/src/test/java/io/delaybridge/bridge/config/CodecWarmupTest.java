package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The producer's codec loaded ahead of the first send: each codec Kafka knows, and a name it does not. */
class CodecWarmupTest {

    @ParameterizedTest
    @ValueSource(strings = {"snappy", "lz4", "zstd", "gzip", "none"})
    void loadsEveryCodecTheProducerCanUse(String codec) {
        assertTrue(CodecWarmup.warm(codec), codec);
    }

    @Test
    void aNameKafkaDoesNotKnowIsReportedNotThrown() {
        assertFalse(CodecWarmup.warm("brotli"));
        assertTrue(CodecWarmup.warm(null), "no codec set: nothing to load");
    }
}
