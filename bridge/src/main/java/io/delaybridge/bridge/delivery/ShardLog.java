package io.delaybridge.bridge.delivery;

import org.apache.kafka.clients.producer.ProducerRecord;

/** The delivered log as a shard's transactions use it ({@link DeliveredLog}). */
interface ShardLog {

    /**
     * What the last committed records of {@code shard} say (the partition's tail), with the records they point to; no
     * messages and no floor if it has none.
     */
    DeliveredRecord.Contents latest(int shard);

    /**
     * What the shard's committed records from offset {@code from} on, and the earlier ones they point to, say
     * together (every message any of them lists, the highest floor), and the offset the read ended at; with {@code
     * from} below 0 what the last committed records and those they point to say. A shard's owner reads from where its last read ended once it fenced the shard's other writers: a fenced
     * instance may have committed records after that read, and each lists only what its writer knew.
     */
    Read read(int shard, long from);

    /** What a read found, and where it ended: the next read starts there. */
    record Read(DeliveredRecord.Contents contents, long end) {}

    /** The record a transaction of {@code shard} writes, listing {@code value}, its key taking {@code slot}. */
    ProducerRecord<byte[], byte[]> record(int shard, int slot, byte[] value);
}
