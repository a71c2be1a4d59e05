package io.delaybridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.util.component.LifeCycle;
import org.junit.jupiter.api.Test;

class PipelineStartTest {

    private final List<String> events = new ArrayList<>();
    private final LifecycleEnvironment lifecycle = new LifecycleEnvironment(new MetricRegistry());
    private final PipelineStart pipeline = new PipelineStart(lifecycle);

    @Test
    void partsStartInOrderAtOnceAndTheServersLifecycleOnlyStopsThemLastFirst() throws Exception {
        pipeline.manage(part("pump", null));
        pipeline.manage(part("thaw", null));
        pipeline.manage(part("intake", null));

        pipeline.start();
        assertEquals(List.of("start pump", "start thaw", "start intake"), events);

        events.clear();
        List<LifeCycle> managed = lifecycle.getManagedObjects();
        for (LifeCycle each : managed) {
            each.start(); // the server's start: the parts ran already
        }
        assertEquals(List.of(), events, "the server's start starts nothing twice");
        for (int i = managed.size() - 1; i >= 0; i--) {
            managed.get(i).stop(); // the server stops its managed objects last first
        }
        assertEquals(List.of("stop intake", "stop thaw", "stop pump"), events);
    }

    @Test
    void aPartThatFailsToStartStopsThoseBeforeItAndFailsTheStart() {
        IOException cause = new IOException("no route to the broker");
        pipeline.manage(part("pump", null));
        pipeline.manage(part("thaw", null));
        pipeline.manage(part("intake", cause));
        pipeline.manage(part("never", null));

        IllegalStateException thrown = assertThrows(IllegalStateException.class, pipeline::start);
        assertSame(cause, thrown.getCause());
        assertEquals("the pipeline did not start: no route to the broker", thrown.getMessage());
        assertEquals(List.of("start pump", "start thaw", "start intake", "stop thaw", "stop pump"), events);
    }

    @Test
    void aRuntimeFailureIsThrownAsItWas() {
        IllegalArgumentException cause = new IllegalArgumentException("bad");
        pipeline.manage(part("pump", cause));
        assertSame(cause, assertThrows(IllegalArgumentException.class, pipeline::start));
        assertEquals(List.of("start pump"), events);
    }

    private Managed part(String name, Exception failure) {
        return new Managed() {
            @Override
            public void start() throws Exception {
                events.add("start " + name);
                if (failure != null) {
                    throw failure;
                }
            }

            @Override
            public void stop() {
                events.add("stop " + name);
            }
        };
    }
}
