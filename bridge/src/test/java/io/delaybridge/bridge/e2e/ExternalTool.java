package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds a program the tests run (promtool, chromium) on the PATH. Missing: the test is skipped with a message saying
 * what to install, except on CI ({@code CI=true}), where it fails, so CI cannot pass without the check.
 */
final class ExternalTool {

    private ExternalTool() {}

    static String require(String purpose, String install, String... names) {
        Optional<String> found = Arrays.stream(names)
                .map(ExternalTool::onPath)
                .flatMap(Optional::stream)
                .findFirst();
        if (found.isPresent()) {
            return found.get();
        }
        String message =
                purpose + " needs one of " + Arrays.toString(names) + " on the PATH; install it with: " + install;
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("CI=true: " + message);
        }
        Assumptions.abort("skipped: " + message);
        return null;
    }

    private static Optional<String> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            File file = new File(dir, name);
            if (file.isFile() && file.canExecute()) {
                return Optional.of(file.getAbsolutePath());
            }
        }
        return Optional.empty();
    }
}
