package io.delaybridge.bridge;

import io.delaybridge.bridge.admin.FarMessages;
import io.delaybridge.bridge.admin.ShardReport;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.admin.api.AuthFilter;
import io.delaybridge.bridge.admin.api.DeadletterResource;
import io.delaybridge.bridge.admin.api.MessagesResource;
import io.delaybridge.bridge.admin.api.SeriesResource;
import io.delaybridge.bridge.admin.api.ShardsResource;
import io.delaybridge.bridge.admin.api.StoreExceptionMapper;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.delivery.DeadletterReplay;
import io.delaybridge.bridge.log.OffsetReader;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.redis.RedisDelayStore;
import io.delaybridge.bridge.time.Time;
import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ExecutorService;

/**
 * The operations API, a part of {@link AdminPart}'s wiring: authentication on the application's and the admin's
 * paths, the far records read back from the intake, the deadletter replays on a thread of their own, and the message,
 * series, shard and deadletter resources.
 */
final class ApiPart {

    /** How long the API reads far records back from the intake, per request. */
    private static final Duration INTAKE_READ = Duration.ofSeconds(15);

    private ApiPart() {}

    /** Serves the API over {@code parts}; its reader and replays are closed by the lifecycle, in that order reversed. */
    static void wire(
            DelayBridgeConfiguration config,
            Environment environment,
            PipelineParts parts,
            ApiSettings api,
            ShardReport report,
            Clock clock,
            Time time) {
        KafkaFactory kafka = config.getKafka();
        RedisDelayStore store = parts.store();
        MessageAdmin messages = store.messageAdmin();
        // far records wait in the intake's log: the API reads them back by position to show and act on them
        OffsetReader intakeReader =
                new OffsetReader(kafka.offsetReaderProperties("api"), kafka.getIntakeTopic(), INTAKE_READ, time);
        environment.lifecycle().manage(DelayBridgeApplication.closing(intakeReader));
        FarMessages farMessages = new FarMessages(
                store.far(),
                messages,
                store.router(),
                intakeReader,
                INTAKE_READ,
                parts.intakeSettings().translator());

        AuthFilter auth = new AuthFilter(api.credentials(), api.authenticateReads(), api.maxBodyBytes());
        environment
                .servlets()
                .addFilter("auth", auth)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        environment
                .admin()
                .addFilter("auth", auth)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");

        DeadletterResource deadletter = deadletter(config, environment, parts, api, clock);
        environment.jersey().register(new StoreExceptionMapper());
        environment
                .jersey()
                .register(new MessagesResource(
                        store,
                        messages,
                        farMessages,
                        api,
                        config.getIntake().getMaxDelay().toMilliseconds(),
                        environment.metrics()));
        environment.jersey().register(new SeriesResource(store, messages));
        environment.jersey().register(new ShardsResource(report));
        environment.jersey().register(deadletter);
    }

    /** The deadletter resource: one replay at a time, from the deadletter topic back into the intake. */
    private static DeadletterResource deadletter(
            DelayBridgeConfiguration config,
            Environment environment,
            PipelineParts parts,
            ApiSettings api,
            Clock clock) {
        KafkaFactory kafka = config.getKafka();
        ExecutorService replayThread = environment
                .lifecycle()
                .executorService("deadletter-replay")
                .minThreads(1)
                .maxThreads(1)
                .build();
        DeadletterResource deadletter = new DeadletterResource(
                (id, filter) -> new DeadletterReplay(
                        id,
                        filter,
                        kafka.consumerProperties(),
                        parts.producer(),
                        kafka.getDeadletterTopic(),
                        kafka.getIntakeTopic(),
                        clock),
                replayThread,
                api.maxReplay());
        environment.lifecycle().manage(DelayBridgeApplication.closing(deadletter::stopAll));
        return deadletter;
    }
}
