package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * With every in-flight place taken, the pump sends nothing more and waits for acknowledgements without spinning.
 * The producer sends to the real broker, and the pump sees each acknowledgement only when the test releases it; the
 * store is a real Redis.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class PumpBackPressureIT {

    private static final int MAX_IN_FLIGHT = 5;

    @Test
    void aFullInFlightWindowPausesClaimingWithoutBurningCpu(TestServers servers) throws Exception {
        try (PumpRig rig = new PumpRig(servers, "bp", false)) {
            long now = rig.store.now();
            List<WriteOp> due = new ArrayList<>();
            for (int offset = 0; offset < 4 * MAX_IN_FLIGHT; offset++) {
                due.add(rig.scheduleOp(offset, now - 1));
            }
            rig.store.write(due).get(10, TimeUnit.SECONDS);

            PumpRig.RecordingProducer producer = rig.producer;
            Pump pump = rig.pump(new PumpSettings(MAX_IN_FLIGHT, 30_000, MAX_IN_FLIGHT, 1_000, 0));
            pump.start();
            try {
                pump.assign(List.of(0));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> producer.history().size() == MAX_IN_FLIGHT);

                ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                long pumpThread = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("delay-pump"))
                        .findFirst()
                        .orElseThrow()
                        .getId();
                long cpuBefore = threads.getThreadCpuTime(pumpThread);
                long wallBefore = System.nanoTime();
                await().pollDelay(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> true);
                long cpuMillis = (threads.getThreadCpuTime(pumpThread) - cpuBefore) / 1_000_000;
                long wallMillis = (System.nanoTime() - wallBefore) / 1_000_000;

                assertEquals(MAX_IN_FLIGHT, producer.history().size(), "nothing more is sent while the window is full");
                assertEquals(MAX_IN_FLIGHT, pump.inFlight());
                assertTrue(
                        cpuMillis < wallMillis / 5,
                        "the pump waits, it does not spin: " + cpuMillis + " ms of CPU in " + wallMillis + " ms");

                for (int i = 0; i < MAX_IN_FLIGHT; i++) {
                    producer.completeNext();
                }
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> producer.history().size() == 2 * MAX_IN_FLIGHT);
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertEquals(
                                MAX_IN_FLIGHT,
                                rig.metrics.meter("delay.delivered").getCount()));
            } finally {
                producer.releaseAll(); // let the last sends finish so stop() does not wait on them
                pump.stop();
            }
        }
    }
}
