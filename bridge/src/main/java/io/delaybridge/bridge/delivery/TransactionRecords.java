package io.delaybridge.bridge.delivery;

import io.delaybridge.bridge.delivery.TurnProducer.Member;
import io.delaybridge.bridge.errors.Failures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a commit of the {@link InstanceTransaction} adds to its transaction besides the sends: one record of the
 * delivered log per shard it delivered for (listing what the shard's committed transactions delivered, its own sends
 * included, and the shard's intake floor), and the intake offsets its express records let commit, all shards' in one
 * {@code sendOffsetsToTransaction}.
 */
final class TransactionRecords {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionRecords.class);

    /** Where a transaction's intake offsets come from (the intake's {@link TransactionOffsets}, once it set one). */
    interface OffsetsSource {
        /** The current source, or null. */
        TransactionOffsets get();
    }

    private final ShardLog log;
    private final OffsetsSource offsets;
    private final IntFunction<TransactionShard> shards;

    TransactionRecords(ShardLog log, OffsetsSource offsets, IntFunction<TransactionShard> shards) {
        this.log = log;
        this.offsets = offsets;
        this.shards = shards;
    }

    /**
     * Adds to {@code producer}'s open transaction each shard's delivered-log record and the intake offsets that may
     * commit with it ({@code carries}, {@code floors} filled in); returns why the transaction must abort, or null.
     */
    Exception write(
            Producer<byte[], byte[]> producer,
            Map<Integer, List<Member>> byShard,
            List<TransactionOffsets.Carry> carries,
            Map<TransactionShard, Long> floors) {
        Map<TopicPartition, OffsetAndMetadata> carried = new HashMap<>();
        ConsumerGroupMetadata group = null;
        for (Map.Entry<Integer, List<Member>> entry : byShard.entrySet()) {
            TransactionShard shard = shards.apply(entry.getKey());
            Map<String, Sends.Message> listed = shard == null ? new LinkedHashMap<>() : shard.delivered.listed();
            for (Member member : entry.getValue()) {
                listed.put(member.message.id(), member.message);
            }
            TransactionOffsets.Carry carry = offer(entry.getKey(), entry.getValue());
            if (carry != null) {
                carries.add(carry);
                carried.putAll(carry.offsets());
                group = carry.group();
            }
            long floor = -1;
            if (shard != null) {
                floor = shard.intakeFloor.forRecord(carry);
                floors.put(shard, floor);
            }
            producer.send(log.record(entry.getKey(), DeliveredRecord.encode(listed.values(), floor)));
        }
        if (carried.isEmpty()) {
            return null;
        }
        try {
            producer.sendOffsetsToTransaction(carried, group);
            return null;
        } catch (KafkaException e) {
            LOG.info(
                    "Intake offsets {} refused ({}); aborting the transaction, its sends are retried",
                    carried,
                    Failures.describe(e));
            return e;
        }
    }

    /** The intake offsets that may commit with the sends {@code members} of {@code shard}, or null. */
    private TransactionOffsets.Carry offer(int shard, List<Member> members) {
        TransactionOffsets source = offsets.get();
        if (source == null) {
            return null;
        }
        List<String> origins = new ArrayList<>(members.size());
        for (Member member : members) {
            origins.add(member.message.origin());
        }
        try {
            return source.offer(shard, origins);
        } catch (RuntimeException e) {
            LOG.warn("Shard {}: the intake's offsets are not committed with this transaction: {}", shard, e.toString());
            return null;
        }
    }
}
