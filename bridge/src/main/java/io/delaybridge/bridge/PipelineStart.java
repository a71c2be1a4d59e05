package io.delaybridge.bridge;

import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipeline's running parts (the pump, the far tier's thaw and retention watch, the intake), started by {@code run}
 * itself once everything is wired rather than by Dropwizard once it has built its HTTP server: the intake joins its
 * group and the pump takes its shards while Jetty and Jersey are still being set up.
 *
 * <p>Each part is handed to the lifecycle too, which stops it as before: in the reverse order of registration, among
 * the other managed objects, when the server stops (or fails to start). Its start there does nothing: it ran already.
 * A part that fails to start stops the parts started before it, last first, and fails {@code run}: the bridge does
 * not start, as when a managed object failed to start.
 */
final class PipelineStart {

    private final LifecycleEnvironment lifecycle;
    private final List<Managed> parts = new ArrayList<>();

    PipelineStart(LifecycleEnvironment lifecycle) {
        this.lifecycle = lifecycle;
    }

    /** A part started by {@link #start}, in the order given, and stopped by the lifecycle. */
    void manage(Managed part) {
        parts.add(part);
        lifecycle.manage(new Managed() {
            @Override
            public void stop() throws Exception {
                part.stop();
            }
        });
    }

    /** Starts every part, in the order they were handed over. */
    void start() {
        List<Managed> started = new ArrayList<>();
        try {
            for (Managed part : parts) {
                part.start();
                started.add(part);
            }
        } catch (Exception e) {
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).stop();
                } catch (Exception stopping) {
                    e.addSuppressed(stopping);
                }
            }
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("the pipeline did not start: " + e.getMessage(), e);
        }
    }
}
