package io.delaybridge.bridge.admin;

import io.delaybridge.bridge.pump.PumpPauses;
import io.dropwizard.servlets.tasks.Task;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /tasks/pause-pump} and {@code POST /tasks/resume-pump} on the admin port: stop or restart releasing due
 * messages, on every shard or on one ({@code ?shard=N}). Messages already in flight finish; intake goes on, so
 * pending counts grow while paused. The state shows in the {@code pipeline} health check and the
 * {@code delay.pump.paused} / {@code delay.pump.paused-shards} gauges.
 */
public final class PumpPauseTask extends Task {

    private final boolean pause;
    private final PumpPauses shards;

    private PumpPauseTask(String name, boolean pause, PumpPauses shards) {
        super(name);
        this.pause = pause;
        this.shards = shards;
    }

    public static PumpPauseTask pause(PumpPauses shards) {
        return new PumpPauseTask("pause-pump", true, shards);
    }

    public static PumpPauseTask resume(PumpPauses shards) {
        return new PumpPauseTask("resume-pump", false, shards);
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
        // the AuthFilter in front of /tasks has authenticated the caller (Audit.principal())
        List<String> shard = parameters.getOrDefault("shard", List.of());
        if (shard.isEmpty()) {
            shards.setPaused(pause);
            if (!pause) {
                shards.pausedShards().forEach(shards::resume);
            }
            Audit.log(Audit.principal(), getName(), "shards=all");
            output.println((pause ? "paused" : "resumed") + " all shards");
            return;
        }
        int n;
        try {
            n = Integer.parseInt(shard.get(0));
            if (pause) {
                shards.pause(n);
            } else {
                shards.resume(n);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("shard: '" + shard.get(0) + "' is not a shard of this store (0.."
                    + (shards.shardCount() - 1) + ")");
        }
        Audit.log(Audit.principal(), getName(), "shards=" + n);
        output.println((pause ? "paused" : "resumed") + " shard " + n
                + (shards.paused() && !pause
                        ? " (but every shard is still paused: POST /tasks/resume-pump without shard)"
                        : ""));
    }
}
