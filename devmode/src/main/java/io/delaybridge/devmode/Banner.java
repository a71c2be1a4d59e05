package io.delaybridge.devmode;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;

/** What dev mode prints once everything runs: the addresses, the log files and ready-to-paste kcat lines. */
record Banner(String kafka, String redis, int httpPort, int adminPort, Path dataDir, List<Path> logs) {

    void print() {
        System.out.println(
                """

                ============================================================================
                delay-bridge dev mode is ready
                  Kafka bootstrap   %1$s   (intake: delay-intake, deadletter: delay-deadletter)
                  Redis             %2$s
                  Admin             http://127.0.0.1:%3$d/healthcheck   http://127.0.0.1:%3$d/metrics
                  Application       http://127.0.0.1:%4$d/
                  Data              %5$s
                  Logs              %7$s

                Produce a record due in 10 seconds (apt-get install kcat):
                  echo '{"order":42}' | kcat -P -b %1$s -t delay-intake -k order-42 -H delay-target=%6$s -H delay-ms=10s

                Watch it arrive on its target:
                  kcat -C -b %1$s -t %6$s -o beginning -f 'key=%%k headers=[%%h] value=%%s\\n'

                Ctrl-C stops the bridge, Kafka and Redis.
                ============================================================================""".formatted(kafka, redis, adminPort, httpPort, dataDir, DevMode.EXAMPLE_TARGET, logList()));
    }

    private String logList() {
        return logs.stream().map(Banner::shown).collect(Collectors.joining("  "));
    }

    /** A file as dev mode names it: relative to the working directory when it is below it, so that it stays short. */
    static String shown(Path file) {
        Path here = Paths.get("").toAbsolutePath();
        Path absolute = file.toAbsolutePath();
        return (absolute.startsWith(here) ? here.relativize(absolute) : absolute).toString();
    }
}
