package io.delaybridge.devmode;

import io.delaybridge.bridge.DelayBridgeApplication;
import io.delaybridge.bridge.DelayBridgeConfiguration;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.JarLocation;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * The bridge as dev mode runs it: its log to a file and its own lines to the terminal ({@link DevLogging}), a banner
 * once it listens, a handle on its server so that dev mode can stop it before the broker, and a callback instead of
 * {@code System.exit} when it fails to start, so that dev mode can say what failed and stop the broker and Redis.
 */
final class DevBridgeApplication extends DelayBridgeApplication {

    private final Path logFile;
    private final Runnable onStarted;
    private final Consumer<Throwable> onFailed;
    private final AtomicReference<Server> jetty;

    DevBridgeApplication(
            Path logFile, Runnable onStarted, Consumer<Throwable> onFailed, AtomicReference<Server> jetty) {
        this.logFile = logFile;
        this.onStarted = onStarted;
        this.onFailed = onFailed;
        this.jetty = jetty;
    }

    /**
     * What {@code Application.run(String...)} does, except that the command line's own output (a failed start's
     * stack trace, configuration errors) goes to the bridge's log file instead of the terminal.
     */
    @Override
    public void run(String... arguments) throws Exception {
        Bootstrap<DelayBridgeConfiguration> bootstrap = new Bootstrap<>(this);
        addDefaultCommands(bootstrap);
        initialize(bootstrap);
        bootstrap.registerMetrics();
        // Left open: the server keeps running after run() returns, and a failure while stopping is written here too
        OutputStream log = Files.newOutputStream(logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        new Cli(new JarLocation(getClass()), bootstrap, log, log).run(arguments).ifPresent(this::onFatalError);
    }

    @Override
    protected void onFatalError(Throwable t) {
        onFailed.accept(t);
    }

    @Override
    public void run(DelayBridgeConfiguration config, Environment environment) {
        DevLogging.bridgeToTerminal(); // Dropwizard has set up the bridge's logging from bridge.yml by now
        super.run(config, environment);
        environment.lifecycle().addServerLifecycleListener(jetty::set);
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarted(LifeCycle event) {
                onStarted.run();
            }
        });
    }
}
