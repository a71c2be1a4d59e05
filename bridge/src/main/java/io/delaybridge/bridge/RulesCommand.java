package io.delaybridge.bridge;

import io.dropwizard.core.Application;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * {@code java -jar delay-bridge.jar rules config.yml}: runs only the delay rules of the configuration (with the
 * admin port: health checks and metrics), no intake, store or pump, so that the rules can be scaled apart from the
 * bridge. Instances of {@code rules} and of {@code server} with the same configuration share the rules' work: they
 * are members of one Kafka Streams application.
 */
final class RulesCommand extends ServerCommand<DelayBridgeConfiguration> {

    RulesCommand(Application<DelayBridgeConfiguration> application) {
        super(application, "rules", "Runs only the delay rules of the configuration");
    }

    @Override
    protected void run(
            Bootstrap<DelayBridgeConfiguration> bootstrap, Namespace namespace, DelayBridgeConfiguration configuration)
            throws Exception {
        configuration.rulesOnly(true);
        super.run(bootstrap, namespace, configuration);
    }
}
