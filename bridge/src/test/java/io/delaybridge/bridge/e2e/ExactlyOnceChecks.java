package io.delaybridge.bridge.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** What every exactly-once test asserts of a {@code read_committed} consumer, and the log lines it shows on a failure. */
final class ExactlyOnceChecks {

    private ExactlyOnceChecks() {}

    /** Every record arrived exactly once, none early; the lateness of each. */
    static Lateness exactlyOnce(Path dir, KafkaClient.Collector committed, Map<String, Long> dueAt) {
        assertEquals(
                List.of(),
                Copies.duplicates(committed),
                () -> "read_committed saw these records twice: " + Copies.describeDuplicates(committed)
                        + "\nwhat the bridges said of their transactions and the intake's offsets:\n" + evidence(dir));
        assertEquals(new TreeSet<>(dueAt.keySet()), RecoveryIT.keys(committed), "nothing lost");
        return RecoveryIT.check(committed, dueAt);
    }

    /** The lines of the bridge logs in {@code dir} that tell what happened to transactions and intake offsets. */
    static String evidence(Path dir) {
        StringBuilder lines = new StringBuilder();
        try (java.util.stream.Stream<Path> logs = Files.list(dir)) {
            for (Path log :
                    logs.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains("InstanceTransaction")
                            || line.contains("TransactionalSends")
                            || line.contains("IntakeFloors")
                            || line.contains("IntakeRebalance")
                            || line.contains("FencedMember")) {
                        lines.append(log.getFileName())
                                .append(": ")
                                .append(line)
                                .append('\n');
                    }
                }
            }
        } catch (java.io.IOException e) {
            lines.append("(logs not read: ").append(e).append(')');
        }
        return lines.toString();
    }
}
