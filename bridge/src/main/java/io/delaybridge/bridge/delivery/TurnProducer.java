package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.errors.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the instance's two transactional producers ({@link InstanceTransaction}) and the transaction it gathers: the
 * sends made into it since it began. The instance transaction's lock guards it while it gathers; once taken
 * ({@link #take}) the transaction belongs to the commit that took it, and the producer gathers nothing until that
 * commit ended.
 */
final class TurnProducer {

    private static final Logger LOG = LoggerFactory.getLogger(TurnProducer.class);

    /** One send of a transaction: its timestamp or error arrives in the producer's callback. */
    static final class Member {
        final int shard;
        final Sends.Message message;
        final Delivery.Result result;
        volatile long timestamp = -1;
        volatile Exception error;

        Member(int shard, Sends.Message message, Delivery.Result result) {
            this.shard = shard;
            this.message = message;
            this.result = result;
        }
    }

    /** The sends of one transaction, and the first error any of them met. */
    static final class Gathered {
        final List<Member> members = new ArrayList<>();
        volatile Exception failure;
    }

    final Producer<byte[], byte[]> producer;
    private Gathered open;

    TurnProducer(Producer<byte[], byte[]> producer) {
        this.producer = producer;
    }

    /** Whether a transaction is open with sends in it. */
    boolean gathering() {
        return open != null;
    }

    /** Sends {@code record} in the open transaction, beginning one if none is open. */
    void send(Member member, ProducerRecord<byte[], byte[]> record) {
        if (open == null) {
            producer.beginTransaction();
            open = new Gathered();
        }
        Gathered gathered = open;
        gathered.members.add(member);
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    member.timestamp = metadata.timestamp();
                } else {
                    member.error = error;
                    gathered.failure = error;
                }
            });
        } catch (RuntimeException e) {
            member.error = e;
            gathered.failure = e;
        }
    }

    /** Ends gathering: the open transaction's sends, for its commit; null if none is open. */
    Gathered take() {
        Gathered taken = open;
        open = null;
        return taken;
    }

    /** Closes the producer at once: a transaction it has open is aborted, here or by the next owner's fence. */
    void close() {
        try {
            producer.close(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.debug("Closing a transactional producer: {}", Failures.describe(e));
        }
    }
}
