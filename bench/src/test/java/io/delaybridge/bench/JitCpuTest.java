package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class JitCpuTest {

    @Test
    void aCompilerThreadCountsItsUserAndSystemTicks() {
        String c2 = "4711 (C2 CompilerThre) S 1 4700 4700 0 -1 1077936192 120 0 0 0 731 42 0 0 20 0 30 0";
        assertEquals(773, JitCpu.compilerTicks(c2));
        String c1 = "4712 (C1 CompilerThre) R 1 4700 4700 0 -1 1077936192 120 0 0 0 5 1 0 0 20 0 30 0";
        assertEquals(6, JitCpu.compilerTicks(c1));
    }

    @Test
    void otherThreadsCountNothingWhateverTheirNames() {
        // a name with spaces and parentheses: the last ')' ends it
        String worker = "4713 (delay-release (x)) S 1 4700 4700 0 -1 1077936192 120 0 0 0 999 99 0 0 20 0 30 0";
        assertEquals(0, JitCpu.compilerTicks(worker));
        assertThrows(IllegalArgumentException.class, () -> JitCpu.compilerTicks("1 (C2 CompilerThre) S 1 2"));
    }

    @Test
    void thisJvmsCompilersUsedNoMoreThanTheWholeProcess() {
        long pid = ProcessHandle.current().pid();
        if (!Files.isDirectory(Path.of("/proc", Long.toString(pid), "task"))) {
            assertEquals(-1, JitCpu.nanos(pid));
            return;
        }
        long jit = JitCpu.nanos(pid);
        long total = ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElseThrow();
        assertTrue(jit > 0, "a JVM that ran the test framework compiled something: " + jit);
        // both counted in ticks: the process' total is read after, and a tick's rounding on each side
        assertTrue(jit <= total + 20_000_000L, jit + " ns of JIT against " + total + " ns in all");
        assertEquals(-1, JitCpu.nanos(Long.MAX_VALUE));
    }
}
