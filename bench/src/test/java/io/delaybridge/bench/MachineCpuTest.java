package io.delaybridge.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

    @Test
    void busyCountsUserNiceSystemAndInterruptsApartFromIdleIowaitAndSteal() {
        //                          user nice system idle iowait irq softirq steal guest guest_nice
        MachineCpu cpu = MachineCpu.parse("cpu  100 20 30 400 50 6 4 70 0 0");

        assertEquals(new MachineCpu(160, 400, 50, 70), cpu);
    }

    @Test
    void sharesAreOfAllTicksBetweenTwoReadings() {
        MachineCpu before = MachineCpu.parse("cpu  1000 0 0 5000 100 0 0 200 0 0");
        MachineCpu after = MachineCpu.parse("cpu  1150 10 6 5016 108 2 2 220 0 0");

        // 170 busy + 16 idle + 8 iowait + 20 steal = 214 ticks, each share rounded
        assertEquals("machine: busy 79 %, idle 7 %, iowait 4 %, steal 9 %", after.sharesSince(before));
    }

    @Test
    void aPerCoreLineIsNotTheAggregate() {
        assertThrows(IllegalArgumentException.class, () -> MachineCpu.parse("cpu0 1 2 3 4 5 6 7 8"));
    }
}
