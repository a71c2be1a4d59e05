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
 * a timeout (the fault campaign saw a bridge fenced this way after a broker was killed, and again after the next
 * kill: a coordinator back from a crash can hold an older member id). Stopping for good then would leave a healthy
 * bridge stopped after a broker crash. So a fence rejoins with a new consumer after {@link #REJOIN_DELAY}; the
 * {@link #STOP_AT}th fence within {@link #WINDOW} means another instance holds the id (two instances of one id take it
 * from each other every few seconds, each waiting {@link #REJOIN_DELAY} before it rejoins), and the intake stops
 * saying so. Of two instances with one id the older is fenced that often first and stops; the newer goes on.
 */
final class FencedMember {

    /** How long a fenced intake waits before it rejoins: two instances of one id do not trade it back at once. */
    static final Duration REJOIN_DELAY = Duration.ofSeconds(5);
    /** How many fences within {@link #WINDOW} stop the intake. */
    static final int STOP_AT = 3;
    /** The span in which {@link #STOP_AT} fences stop the intake. */
    static final Duration WINDOW = Duration.ofMinutes(2);

    /** When the last fences came (monotonic), oldest first, at most {@link #STOP_AT}. */
    private final java.util.ArrayDeque<Long> fences = new java.util.ArrayDeque<>();

    /** What the log says when the intake rejoins after a fence. */
    static String rejoining(Properties consumer) {
        return "Consumer group '" + consumer.get(ConsumerConfig.GROUP_ID_CONFIG) + "' fenced this instance's id '"
                + consumer.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG) + "' (kafka.instanceId): "
                + "either another bridge joined with the same id, or the group coordinator lost track of this member "
                + "(a broker restarted). Rejoining with a new consumer in " + REJOIN_DELAY.toSeconds() + " s; "
                + STOP_AT + " fences within " + WINDOW.toMinutes() + " minutes stop this instance";
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
        fences.addLast(nowNanos);
        while (fences.size() > STOP_AT || nowNanos - fences.peekFirst() >= WINDOW.toNanos()) {
            fences.pollFirst();
        }
        return fences.size() < STOP_AT;
    }
}
