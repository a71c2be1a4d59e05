package io.delaybridge.bridge.probe;

/**
 * Told each time the pipeline reaches a {@link Checkpoint}, on the thread that reached it. The service runs with
 * {@link #NONE}; the fault campaign hands the application one of its own through
 * {@code new DelayBridgeApplication(clock, probe)}, to act at an exact place in the record's way.
 */
@FunctionalInterface
public interface PipelineProbe {

    /** Does nothing. */
    PipelineProbe NONE = checkpoint -> {};

    void reached(Checkpoint checkpoint);
}
