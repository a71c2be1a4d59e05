package io.delaybridge.bridge;

import io.delaybridge.bridge.admin.RulesReport;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.delivery.TargetRates;

/**
 * Operations, the last part of {@link DelayBridgeApplication}'s wiring: health checks, gauges, Prometheus, tasks and
 * the message API ({@link AdminPart}), the delay rules ({@link RulesPart}, started with the server, after the
 * pipeline) and the status page that shows them all ({@link StatusPart}).
 */
final class OperationsPart {

    private OperationsPart() {}

    static void wire(Wiring wiring, PipelineParts parts, TargetRates rates) {
        DelayBridgeConfiguration config = wiring.config();
        ApiSettings api = config.getApi().build();
        ShardReport report =
                AdminPart.wire(config, wiring.environment(), wiring.admin(), parts, api, wiring.clock(), wiring.time());
        RulesReport rules =
                RulesPart.wire(config, wiring.environment(), wiring.admin(), wiring.deadletters(), wiring.clock());
        if (api.statusPage()) {
            StatusPart.statusPage(
                    wiring.environment(), report, rules, rates, parts.store().messageAdmin(), wiring.time());
        }
    }
}
