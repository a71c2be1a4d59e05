package io.delaybridge.checker;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether libfaketime's {@code faketime} command is on the PATH (Debian: {@code apt-get install faketime}). */
final class FaketimeCheck {

    private FaketimeCheck() {
    }

    static boolean installed() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "faketime"))) {
                return true;
            }
        }
        return false;
    }
}
