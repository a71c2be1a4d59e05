package io.delaybridge.bridge.intake;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Whether the intake rejoins or stops when the consumer group fences its static member id ({@code kafka.instanceId}).
 * Holds no connection.
 *
 * <p>Usually a fence means that another bridge runs with the same id, and then one of the two must stop: two instances
 * would otherwise take the id from each other for ever. But the group coordinator also fences a lone member whose join
 * it lost track of: a broker that restarted and reloaded an older member id for the instance, or a join retried after
 * a timeout (the fault campaign saw a bridge fenced this way after a broker was killed). Stopping for good then would
 * leave a healthy bridge stopped after every such broker crash. So the first fence rejoins with a new consumer after
 * {@link #REJOIN_DELAY}; a second fence within {@link #WINDOW} of the one before means another instance holds the id,
 * and the intake stops saying so. Of two instances with one id the older is fenced twice first and stops; the newer
 * goes on.
 */
final class FencedMember {

    /** How long a fenced intake waits before it rejoins: two instances of one id do not trade it back at once. */
    static final Duration REJOIN_DELAY = Duration.ofSeconds(5);
    /** A second fence within this long of the one before stops the intake. */
    static final Duration WINDOW = Duration.ofMinutes(5);

    private boolean fenced;
    private long lastFenceNanos;

    /** What the log says when the intake rejoins after a fence. */
    static String rejoining(Properties consumer) {
        return "Consumer group '" + consumer.get(ConsumerConfig.GROUP_ID_CONFIG) + "' fenced this instance's id '"
                + consumer.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG) + "' (kafka.instanceId): "
                + "either another bridge joined with the same id, or the group coordinator lost track of this member "
                + "(a broker restarted). Rejoining with a new consumer in " + REJOIN_DELAY.toSeconds() + " s; a second "
                + "fence within " + WINDOW.toMinutes() + " minutes stops this instance";
    }

    /** Why the intake stopped after a second fence: the health check and the log say it. */
    static String stopping(Properties consumer) {
        return "Another bridge joined consumer group '" + consumer.get(ConsumerConfig.GROUP_ID_CONFIG)
                + "' with this instance's id '" + consumer.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)
                + "' and took over its partitions, so this instance stopped reading and pumping. Two running bridges "
                + "need distinct ids: set kafka.instanceId (DELAY_INSTANCE_ID) to a name unique to each instance, "
                + "then restart this one";
    }

    /** The group fenced the member at monotonic {@code nowNanos}: true to rejoin, false to stop. */
    boolean rejoin(long nowNanos) {
        boolean again = fenced && nowNanos - lastFenceNanos < WINDOW.toNanos();
        fenced = true;
        lastFenceNanos = nowNanos;
        return !again;
    }
}
