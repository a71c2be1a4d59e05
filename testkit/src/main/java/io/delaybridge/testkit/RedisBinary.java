package io.delaybridge.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Finds a redis-server executable: {@code $REDIS_SERVER_BIN}, else {@code redis-server} on the PATH, else the
 * binary that the Maven artifact {@code com.github.codemonstur:embedded-redis} ships as a jar resource (for
 * example {@code redis-server-6.2.6-v5-linux-amd64}, a Redis 6.2 build), extracted once into
 * {@code ${java.io.tmpdir}/delay-bridge-redis-<user>/} and made executable.
 */
final class RedisBinary {

    static final String ENV = "REDIS_SERVER_BIN";
    /** A class of embedded-redis, to find the jar that holds the binaries. */
    private static final String ANCHOR = "redis/embedded/RedisServer.class";

    private static Path located;

    private RedisBinary() {}

    static synchronized Path locate() {
        if (located == null) {
            located = find();
        }
        return located;
    }

    private static Path find() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env.trim());
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IllegalStateException(ENV + "=" + env + " is not an executable file; point it at a "
                        + "redis-server binary or unset it to use the one on the PATH or the bundled one");
            }
            return p;
        }
        Path onPath = onPath(ChildProcesses.isWindows() ? "redis-server.exe" : "redis-server");
        if (onPath != null) {
            return onPath;
        }
        return bundled();
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The suffix of the bundled binary's resource name for this OS and architecture. */
    static String platformSuffix() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (os.contains("linux")) {
            if (x64) {
                return "-linux-amd64";
            }
            if (arm64) {
                return "-linux-arm64";
            }
            if (x86) {
                return "-linux-386";
            }
        } else if (os.contains("mac") || os.contains("darwin")) {
            if (x64) {
                return "-darwin-amd64";
            }
            if (arm64) {
                return "-darwin-arm64";
            }
        } else if (os.startsWith("windows") && x64) {
            return "-windows-amd64.exe";
        }
        throw new IllegalStateException(
                "No bundled redis-server for " + os + "/" + arch + ": install redis-server on the PATH or set " + ENV);
    }

    /** The binary bundled in embedded-redis for this platform, extracted (once) and executable. */
    static synchronized Path bundled() {
        String suffix = platformSuffix();
        ClassLoader loader = RedisBinary.class.getClassLoader();
        URL anchor = loader.getResource(ANCHOR);
        if (anchor == null) {
            throw new IllegalStateException("No redis-server found: " + ENV + " is not set, there is no "
                    + "redis-server on the PATH, and com.github.codemonstur:embedded-redis is not on the class path");
        }
        try {
            URLConnection connection = anchor.openConnection();
            if (!(connection instanceof JarURLConnection)) {
                throw new IllegalStateException("embedded-redis is not loaded from a jar (" + anchor + "); set " + ENV);
            }
            connection.setUseCaches(false);
            try (JarFile jar = ((JarURLConnection) connection).getJarFile()) {
                List<JarEntry> candidates = new ArrayList<>();
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry e = entries.nextElement();
                    if (!e.isDirectory()
                            && e.getName().startsWith("redis-server-")
                            && e.getName().endsWith(suffix)
                            && !e.getName().contains("/")) {
                        candidates.add(e);
                    }
                }
                if (candidates.isEmpty()) {
                    throw new IllegalStateException("The embedded-redis jar " + jar.getName() + " has no redis-server-*"
                            + suffix + "; set " + ENV);
                }
                candidates.sort((a, b) -> a.getName().compareTo(b.getName()));
                JarEntry entry = candidates.get(candidates.size() - 1);
                return extract(jar, entry);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract the bundled redis-server from " + anchor, e);
        }
    }

    private static Path extract(JarFile jar, JarEntry entry) throws IOException {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "delay-bridge-redis-" + user);
        Files.createDirectories(dir);
        // The CRC in the name keeps different builds with the same name apart.
        Path target = dir.resolve(entry.getName() + "-" + Long.toHexString(entry.getCrc()));
        if (Files.isRegularFile(target) && Files.isExecutable(target) && Files.size(target) == entry.getSize()) {
            return target;
        }
        Path tmp = Files.createTempFile(dir, entry.getName(), ".part");
        try (InputStream in = jar.getInputStream(entry)) {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            if (!tmp.toFile().setExecutable(true, false)) {
                throw new IOException("Cannot make " + tmp + " executable");
            }
            // Atomic, so that JVMs extracting at the same time never run a half-written file.
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }
}
