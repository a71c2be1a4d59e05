package io.delaybridge.checker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where libfaketime is (Debian: {@code apt-get install faketime}). The campaign preloads the library into the bridge's
 * JVM itself ({@code LD_PRELOAD} + {@code FAKETIME}) rather than running the {@code faketime} command: that command
 * forks, so a kill -9 or SIGSTOP sent to its pid would hit the wrapper and leave the JVM running.
 */
final class FaketimeCheck {

    private static final List<Path> CANDIDATES = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/faketime/libfaketime.so.1"),
            Path.of("/usr/local/lib/faketime/libfaketime.so.1"));

    private FaketimeCheck() {}

    static Optional<Path> library() {
        return CANDIDATES.stream().filter(Files::isReadable).findFirst();
    }

    static boolean installed() {
        return library().isPresent();
    }
}
