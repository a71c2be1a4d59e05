package io.delaybridge.bridge.config;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the producer's compression codec before the first send needs it. snappy, lz4 and zstd are native libraries
 * that their Java wrappers unpack from the jar into the temporary directory and load at their first use; snappy-java
 * also reads the unpacked file back to compare it. Left to the first send, that took 100-250 ms of a cold start on the
 * thread that sends the first due record (the express path's); done on a thread of its own while the topics and Redis
 * are checked, it costs the first delivery nothing.
 *
 * <p>A warm-up only: whatever fails here is logged as a warning and left to the first send, which fails or succeeds as
 * it would have without it (a codec that cannot be loaded here, e.g. for a temporary directory that cannot be written,
 * usually fails every send: the warning says so before the first one).
 */
public final class CodecWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(CodecWarmup.class);

    /** The magic byte of Kafka's record batches since 0.11 (v2), the only format this producer writes. */
    private static final byte RECORD_BATCH_V2 = 2;

    private CodecWarmup() {}

    /**
     * Compresses one byte with {@code compressionType} (a producer's {@code compression.type}), which loads its codec.
     *
     * @return whether the codec is loaded (true for {@code none}, which has none)
     */
    public static boolean warm(String compressionType) {
        String name = compressionType == null ? "none" : compressionType.trim().toLowerCase(Locale.ROOT);
        if (name.equals("none")) {
            return true;
        }
        try (OutputStream out =
                Compression.of(name).build().wrapForOutput(new ByteBufferOutputStream(64), RECORD_BATCH_V2)) {
            out.write(0);
            LOG.debug("Compression codec {} loaded ahead of the first send", name);
            return true;
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.warn(
                    "The producer's compression codec {} (kafka.producer.compression.type) could not be loaded: {}. "
                            + "Sends will likely fail the same way; a native codec needs a writable temporary "
                            + "directory (java.io.tmpdir), or choose another codec",
                    name,
                    e.toString());
            return false;
        }
    }
}
