package io.delaybridge.bridge;

import io.delaybridge.bridge.admin.BuildInfo;
import io.delaybridge.bridge.admin.GroupView;
import io.delaybridge.bridge.admin.PumpPauseTask;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.pump.Pump;
import io.delaybridge.bridge.pump.PumpPauses;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;
import java.time.Clock;
import org.apache.kafka.clients.admin.Admin;

/**
 * Wires operations beside the running pipeline, a part of {@link DelayBridgeApplication}'s wiring kept in its own
 * class: the group's view and the shard report its parts share, the health checks ({@link HealthPart}), the gauges
 * and Prometheus ({@link StatusPart}), the pause tasks, and the operations API ({@link ApiPart}). The rules and the
 * status page that shows them are wired after it.
 */
final class AdminPart {

    /** How long the group's view (members, committed offsets) is reused by the status page and gauges. */
    private static final long GROUP_VIEW_MILLIS = 2_000;

    private AdminPart() {}

    /** Wires operations over {@code parts}; returns the shard report the status page shows. */
    static ShardReport wire(
            DelayBridgeConfiguration config,
            Environment environment,
            Admin admin,
            PipelineParts parts,
            ApiSettings api,
            Clock clock,
            Time time) {
        KafkaFactory kafka = config.getKafka();
        RedisDelayStore store = parts.store();
        Pump pump = parts.pump();
        GroupView group = new GroupView(
                admin,
                kafka.getGroupId(),
                kafka.getIntakeTopic(),
                clock,
                GROUP_VIEW_MILLIS,
                DelayBridgeApplication.ADMIN_CALL_MILLIS);
        ShardReport report = new ShardReport(store, store.messageAdmin(), store.far(), pump, group);

        BuildInfo build = HealthPart.wire(environment, admin, parts, api, report, clock, time);
        StatusPart.wire(environment, parts, report, group, build, time);
        PumpPauses pauses = pump.pauses();
        environment.admin().addTask(PumpPauseTask.pause(pauses));
        environment.admin().addTask(PumpPauseTask.resume(pauses));

        ApiPart.wire(config, environment, parts, api, report, clock, time);
        return report;
    }
}
