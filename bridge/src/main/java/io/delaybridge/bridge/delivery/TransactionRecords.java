package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.delivery.TurnProducer.Member;
import io.delaybridge.bridge.errors.Failures;
import io.delaybridge.schemas.IntakeOrigin;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a commit of the {@link InstanceTransaction} adds to its transaction besides the sends: one record of the
 * delivered log per shard it delivered for (its own sends, and what {@link LoggedRecords} plans besides, and the
 * shard's intake floor), and the intake offsets its express records let commit, all shards' in one {@code
 * sendOffsetsToTransaction}.
 */
final class TransactionRecords {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionRecords.class);

    /** Where a transaction's intake offsets come from (the intake's {@link TransactionOffsets}, once it set one). */
    interface OffsetsSource {
        /** The current source, or null. */
        TransactionOffsets get();
    }

    /**
     * How long a commit waits for its delivered-log records: the shortest transaction timeout the bridge sets (the
     * coordinator aborts a transaction open longer), and half of {@code max.block.ms}, which bounds the commit itself.
     */
    static final long ACK_WAIT_MILLIS = 5_000;

    private final ShardLog log;
    private final OffsetsSource offsets;
    private final IntFunction<TransactionShard> shards;

    TransactionRecords(ShardLog log, OffsetsSource offsets, IntFunction<TransactionShard> shards) {
        this.log = log;
        this.offsets = offsets;
        this.shards = shards;
    }

    /** A shard's record of the delivered log in a transaction: what it lists, and its send. */
    record Written(LoggedRecords.Plan plan, long floor, Future<RecordMetadata> sent) {

        /** The transaction committed: the shard's floor and its record are told. */
        void committed(TransactionShard shard) {
            shard.intakeFloor.recorded(floor);
            long offset = -1;
            try {
                offset = sent.get().offset(); // committed: every send of it completed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.warn("Shard {}: a committed record of the delivered log has no offset: {}", shard.shard, e);
            }
            if (offset >= 0) {
                shard.logged.committed(plan, offset);
            } else {
                shard.logged.opened(); // its next record lists everything again, pointing nowhere
            }
        }
    }

    /**
     * Adds to {@code producer}'s open transaction each shard's delivered-log record and the intake offsets that may
     * commit with it ({@code carries}, {@code written} filled in); returns why the transaction must abort, or null.
     */
    Exception write(
            Producer<byte[], byte[]> producer,
            Map<Integer, List<Member>> byShard,
            List<TransactionOffsets.Carry> carries,
            Map<TransactionShard, Written> written) {
        Map<TopicPartition, OffsetAndMetadata> carried = new HashMap<>();
        List<Future<RecordMetadata>> logSends = new ArrayList<>(byShard.size());
        ConsumerGroupMetadata group = null;
        for (Map.Entry<Integer, List<Member>> entry : byShard.entrySet()) {
            TransactionShard shard = shards.apply(entry.getKey());
            List<Sends.Message> sends = new ArrayList<>(entry.getValue().size());
            for (Member member : entry.getValue()) {
                sends.add(member.message);
            }
            // a shard moved away lists its own sends alone: its next owner fences this instance and reads them
            LoggedRecords.Plan plan =
                    shard == null ? LoggedRecords.alone(sends) : shard.logged.plan(shard.delivered, sends);
            TransactionOffsets.Carry carry = offer(entry.getKey(), entry.getValue());
            if (carry != null) {
                carries.add(carry);
                carried.putAll(carry.offsets());
                group = carry.group();
            }
            long floor = shard == null ? -1 : shard.intakeFloor.forRecord(carry);
            Future<RecordMetadata> sent = producer.send(log.record(
                    entry.getKey(),
                    plan.slot(),
                    DeliveredRecord.encode(plan.messages(), floor, plan.readFrom(), plan.chain())));
            logSends.add(sent);
            if (shard != null) {
                written.put(shard, new Written(plan, floor, sent));
            }
        }
        try {
            if (!carried.isEmpty()) {
                producer.sendOffsetsToTransaction(carried, group);
            }
        } catch (KafkaException e) {
            LOG.info(
                    "Intake offsets {} refused ({}); aborting the transaction, its sends are retried",
                    carried,
                    Failures.describe(e));
            return e;
        }
        return acknowledged(logSends);
    }

    /**
     * Waits until the delivered-log records are acknowledged, {@link #ACK_WAIT_MILLIS} for each; returns why one failed
     * or did not answer, or null. {@code commitTransaction} flushes as well, but a record still unsent when its
     * {@code EndTxn} went out has been seen to stay out of the transaction that committed (it expired 30 s later): the
     * transaction delivered messages that no record listed, and the shard's next owner, reading the log, sent them
     * again.
     */
    private static Exception acknowledged(List<Future<RecordMetadata>> logSends) {
        for (Future<RecordMetadata> sent : logSends) {
            try {
                sent.get(ACK_WAIT_MILLIS, TimeUnit.MILLISECONDS); // sent together: the first wait covers the others
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return e;
            } catch (java.util.concurrent.TimeoutException e) {
                LOG.info(
                        "A record of the delivered log was not acknowledged in {} ms; aborting the transaction, its"
                                + " sends are retried",
                        ACK_WAIT_MILLIS);
                return e;
            } catch (ExecutionException e) {
                LOG.info(
                        "A record of the delivered log failed ({}); aborting the transaction, its sends are retried",
                        Failures.describe(e.getCause()));
                return e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        return null;
    }

    /** The intake offsets that may commit with the sends {@code members} of {@code shard}, or null. */
    private TransactionOffsets.Carry offer(int shard, List<Member> members) {
        TransactionOffsets source = offsets.get();
        if (source == null) {
            return null;
        }
        List<IntakeOrigin> origins = new ArrayList<>(members.size());
        for (Member member : members) {
            origins.add(member.message.place());
        }
        try {
            return source.offer(shard, origins);
        } catch (RuntimeException e) {
            LOG.warn("Shard {}: the intake's offsets are not committed with this transaction: {}", shard, e.toString());
            return null;
        }
    }
}
