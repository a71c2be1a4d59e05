package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.bridge.time.Time;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a delivery to a target topic that does not exist does: follow the broker, as any Kafka producer would. Where the
 * broker creates topics on first use ({@code auto.create.topics.enable=true}, Kafka's default), the send goes ahead and
 * creates it; where it does not, the message waits {@code waitMillis} for someone to create it, then goes to the
 * deadletter topic ({@code DELIVERY_FAILED}, "target topic ... does not exist"), instead of running through the whole
 * retry schedule.
 *
 * <p>The broker's setting is read with the admin client on the first missing topic ({@code describeConfigs} of a broker, which needs the
 * DescribeConfigs permission on the cluster); if it cannot be read, the bridge does not create topics (and reads it again
 * a minute later) and says so in the log. {@link Mode#CREATE} and {@link Mode#DEADLETTER} force either behaviour without asking the broker.
 */
public final class MissingTopics {

    private static final Logger LOG = LoggerFactory.getLogger(MissingTopics.class);
    static final String BROKER_SETTING = "auto.create.topics.enable";

    /** Who decides whether a send may create a missing target topic. */
    public enum Mode {
        /** The broker's {@code auto.create.topics.enable}. */
        BROKER,
        /** Always send: the broker creates the topic (a broker that does not makes each send wait max.block.ms). */
        CREATE,
        /** Never create: wait, then deadletter. */
        DEADLETTER
    }

    private final Admin admin;
    private final Mode mode;
    private final long waitMillis;
    private final long lookupTimeoutMillis;
    private volatile Boolean brokerCreates;
    private final Time time;
    /** When the broker's setting may be read again after a failed read, as {@link Time#nanoseconds}. */
    private long nextReadNanos;

    public MissingTopics(Admin admin, Mode mode, long waitMillis, long lookupTimeoutMillis, Time time) {
        this.time = time;
        this.nextReadNanos = time.nanoseconds();
        this.admin = admin;
        this.mode = mode;
        this.waitMillis = waitMillis;
        this.lookupTimeoutMillis = lookupTimeoutMillis;
    }

    /** How long a message for a topic that does not exist waits for it before it is deadlettered. */
    public long waitMillis() {
        return waitMillis;
    }

    /** Whether a send to a missing topic goes ahead (and creates it). Asks the broker once, on the first call. */
    public boolean createdBySend() {
        return switch (mode) {
            case CREATE -> true;
            case DEADLETTER -> false;
            case BROKER -> brokerCreates();
        };
    }

    private boolean brokerCreates() {
        Boolean known = brokerCreates;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (brokerCreates != null) {
                return brokerCreates;
            }
            if (time.nanoseconds() - nextReadNanos < 0) {
                return false; // the last read failed: asked again after a while, not for every message
            }
            Boolean read = readBrokerSetting();
            if (read == null) {
                nextReadNanos = time.nanoseconds() + TimeUnit.MINUTES.toNanos(1);
                return false;
            }
            brokerCreates = read;
            return read;
        }
    }

    /** The broker's setting, or null if it could not be read. */
    private Boolean readBrokerSetting() {
        try {
            Node node = admin.describeCluster().nodes().get(lookupTimeoutMillis, TimeUnit.MILLISECONDS).stream()
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("the cluster reported no broker"));
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(List.of(broker)).all().get(lookupTimeoutMillis, TimeUnit.MILLISECONDS);
            ConfigEntry entry = configs.get(broker).get(BROKER_SETTING);
            boolean creates = entry == null || entry.value() == null || Boolean.parseBoolean(entry.value());
            LOG.info(
                    "Broker {} has {}={}: a target topic that does not exist is {}",
                    node.idString(),
                    BROKER_SETTING,
                    entry == null ? "(not reported, default true)" : entry.value(),
                    creates
                            ? "created by the first delivery to it"
                            : "waited for " + waitMillis + " ms, then its messages go to the deadletter topic");
            return creates;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            LOG.warn(
                    "Could not read the broker's {} ({}): treating missing target topics as not created by a send. "
                            + "Set pump.missingTopics to create or deadletter to decide without asking the broker",
                    BROKER_SETTING,
                    Failures.describe(cause));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
