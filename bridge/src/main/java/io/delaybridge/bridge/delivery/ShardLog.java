package io.delaybridge.bridge.delivery;

import org.apache.kafka.clients.producer.ProducerRecord;

/** The delivered log as a shard's transactions use it ({@link DeliveredLog}). */
interface ShardLog {

    /** What the last committed record of {@code shard} says; no messages and no floor if it has none. */
    DeliveredRecord.Contents latest(int shard);

    /** The record a transaction of {@code shard} writes, listing {@code value}. */
    ProducerRecord<byte[], byte[]> record(int shard, byte[] value);
}
