package io.delaybridge.devmode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The service image's {@code docker/Dockerfile}, read without a Docker engine (none runs on the build machines): what
 * it builds, how its ENTRYPOINT starts the bridge (the jar, its configuration, its class-data-sharing archive, its JVM
 * options) and that it agrees with the files it copies. The compose stack: {@link DockerComposeFileTest}.
 */
class DockerfileTest {

    private static Path repo;
    private static List<String> instructions;
    private static String buildStage;
    private static String runtimeStage;
    private static String entrypoint;
    /** The ENTRYPOINT's words (exec form). */
    private static List<String> command;
    /** Where {@code -jar} stands in {@link #command}. */
    private static int jar;

    @BeforeAll
    static void read() throws IOException {
        // surefire runs in the module directory (devmode/); the files under test are beside it
        repo = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
        instructions = dockerfileInstructions(repo.resolve("docker/Dockerfile"));
        List<String> from =
                instructions.stream().filter(i -> i.startsWith("FROM ")).toList();
        assertEquals(2, from.size(), "two stages expected: " + from);
        assertTrue(from.get(0).matches("FROM \\S+ AS \\S+"), "the build stage is named: " + from.get(0));
        buildStage = from.get(0).split(" ")[3];
        runtimeStage = from.get(1);
        entrypoint = instructions.stream()
                .filter(i -> i.startsWith("ENTRYPOINT "))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no ENTRYPOINT"));
        command = new ArrayList<>();
        new YAMLMapper().readTree(entrypoint.substring("ENTRYPOINT ".length())).forEach(t -> command.add(t.asText()));
        jar = command.indexOf("-jar");
    }

    @Test
    void theImageBuildsTheBridgeInOneStageAndRunsItsJarInAnother() throws IOException {
        String build = instructions.stream()
                .filter(i -> i.startsWith("RUN ") && i.contains("package"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no RUN ... package in the build stage"));
        assertTrue(build.contains("-pl bridge") && build.contains("-am"), build);

        assertEquals("java", command.get(0), "exec form, java as PID 1: " + entrypoint);
        assertTrue(jar > 0 && command.get(jar + 1).endsWith("delay-bridge.jar"), entrypoint);
        assertEquals("server", command.get(jar + 2), entrypoint);
        String configPath = command.get(jar + 3);

        // the jar the runtime stage copies is the one the bridge's shade plugin writes
        String copyJar = instructions.stream()
                .filter(i -> i.startsWith("COPY --from=" + buildStage + " ") && i.endsWith(" " + command.get(jar + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the jar is not copied from the build stage"));
        assertTrue(copyJar.contains("bridge/target/delay-bridge.jar"), copyJar);
        assertTrue(
                Files.readString(repo.resolve("bridge/pom.xml")).contains("<finalName>delay-bridge</finalName>"),
                "bridge/pom.xml no longer shades to delay-bridge.jar");
        assertTrue(
                instructions.contains("COPY bridge/config.yml " + configPath),
                "the configuration the ENTRYPOINT names is copied from bridge/config.yml: " + configPath);
    }

    @Test
    void theArchiveTheEntrypointMapsIsMadeInTheImageForItsJar() {
        String archive = jvmOption("-XX:SharedArchiveFile=", "the ENTRYPOINT maps no CDS archive");
        String dump = instructions.stream()
                .filter(i -> i.startsWith("RUN ") && i.contains("-Xshare:dump"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the runtime stage makes no CDS archive"));
        assertTrue(dump.contains(archive) && dump.contains("-cp " + command.get(jar + 1)), dump);
        assertTrue(
                instructions.indexOf(dump) > instructions.indexOf(runtimeStage), "made in the runtime stage: " + dump);
        assertTrue(
                instructions.stream().anyMatch(i -> i.startsWith("COPY bridge/src/main/cds/delay-bridge.classlist ")),
                "the archive is made from the training run's class list");
    }

    @Test
    void theEntrypointStartsTheJvmWithTheShippedOptionsFile() {
        // the argument file README names, copied in and named before the jar
        String options = jvmOption("@", "the ENTRYPOINT names no JVM options file");
        assertTrue(
                instructions.contains("COPY bridge/jvm.options " + options.substring(1)),
                "the JVM options the ENTRYPOINT names are copied from bridge/jvm.options: " + options);
        assertTrue(Files.isRegularFile(repo.resolve("bridge/jvm.options")), "bridge/jvm.options is missing");
    }

    @Test
    void theImageListensOnEveryInterfaceRunsAsAUserAndChecksItsHealth() {
        assertTrue(
                instructions.stream().anyMatch(i -> i.matches("ENV DELAY_BIND_HOST=0\\.0\\.0\\.0")),
                "inside a container loopback is unreachable; the image must bind 0.0.0.0");
        String user = instructions.stream()
                .filter(i -> i.startsWith("USER "))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no USER: the bridge would run as root"));
        assertFalse(user.matches("USER (root|0)(:.*)?"), user);
        assertTrue(instructions.contains("EXPOSE 8080 8081"), "EXPOSE 8080 8081 missing");
        assertTrue(
                instructions.stream().anyMatch(i -> i.startsWith("HEALTHCHECK ") && i.contains("/healthcheck")),
                "HEALTHCHECK on the admin healthcheck missing");
    }

    /**
     * The image's labels name the version and the commit: the version's default is the project's (a user's plain
     * {@code docker build} gets the right one; release.sh sets both), the commit comes from {@code DELAY_COMMIT}.
     */
    @Test
    void theImagesLabelsNameTheProjectsVersionAndTheCommit() throws IOException {
        Matcher pom = Pattern.compile("<version>([^<]+)</version>")
                .matcher(Files.readString(repo.resolve("pom.xml")).replaceAll("(?s)<parent>.*?</parent>", ""));
        assertTrue(pom.find(), "no version in pom.xml");
        String runtime = instructions.subList(instructions.indexOf(runtimeStage), instructions.size()).stream()
                .filter(i -> i.startsWith("ARG ") || i.startsWith("LABEL "))
                .reduce("", (a, b) -> a + b + "\n");
        assertTrue(runtime.contains("ARG DELAY_VERSION=" + pom.group(1) + "\n"), runtime);
        assertTrue(runtime.contains("org.opencontainers.image.version=\"${DELAY_VERSION}\""), runtime);
        assertTrue(runtime.contains("ARG DELAY_COMMIT="), runtime);
        assertTrue(runtime.contains("org.opencontainers.image.revision=\"${DELAY_COMMIT}\""), runtime);
    }

    @Test
    void theImagesHeapLeavesRoomForTheJvmsOwnMemoryInA512MbContainer() {
        // measured at full speed (docs/operations.md, "JVM"): RSS is about -Xmx plus 240 MB
        long nonHeapMb = 240;
        long containerMb = 512;
        String options = instructions.stream()
                .filter(i -> i.startsWith("ENV ") && i.contains("JAVA_TOOL_OPTIONS="))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no ENV JAVA_TOOL_OPTIONS"));
        Matcher percentage = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(options);
        assertTrue(percentage.find(), "the heap must follow the container's limit: " + options);
        double heapMb = containerMb * Double.parseDouble(percentage.group(1)) / 100;
        assertTrue(
                heapMb + nonHeapMb <= containerMb,
                "a " + containerMb + " MB container would hold a " + heapMb + " MB heap plus ~" + nonHeapMb + " MB: "
                        + options);
        assertTrue(options.contains("-XX:+ExitOnOutOfMemoryError"), options);
    }

    @Test
    void theBuildContextIgnoresHostBuildOutput() throws IOException {
        Path ignore = repo.resolve("docker/Dockerfile.dockerignore");
        assertTrue(Files.isRegularFile(ignore), "docker/Dockerfile.dockerignore missing");
        List<String> patterns = Files.readAllLines(ignore).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
        assertTrue(patterns.contains("**/target"), patterns.toString());
        assertTrue(patterns.contains(".git"), patterns.toString());
    }

    /** The ENTRYPOINT's word that starts with {@code prefix}, checked to stand before {@code -jar} (a JVM option). */
    private static String jvmOption(String prefix, String missing) {
        String option = command.stream()
                .filter(t -> t.startsWith(prefix))
                .findFirst()
                .orElseThrow(() -> new AssertionError(missing + ": " + entrypoint));
        assertTrue(command.indexOf(option) < jar, "a JVM option after -jar: " + entrypoint);
        return option;
    }

    /** Instructions with line continuations joined and comments dropped, whitespace collapsed. */
    private static List<String> dockerfileInstructions(Path dockerfile) throws IOException {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : Files.readAllLines(dockerfile)) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && current.length() == 0)) {
                continue;
            }
            boolean continues = line.endsWith("\\");
            current.append(continues ? line.substring(0, line.length() - 1) : line)
                    .append(' ');
            if (!continues) {
                out.add(current.toString().strip().replaceAll("\\s+", " "));
                current.setLength(0);
            }
        }
        return out;
    }
}
