package io.delaybridge.bridge.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.time.Time;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link DeliveredLog} on the real broker: each shard's last committed record, never an aborted one after it, read
 * by many shards' opens at once (its one consumer, used by two threads at a time, would throw).
 */
@ExtendWith(RealServersExtension.class)
class DeliveredLogIT {

    private static final int SHARDS = 12;

    @Test
    void shardsOpeningAtOnceEachReadTheirOwnLastCommittedRecord(TestServers servers) throws Exception {
        String bootstrap = servers.kafkaBootstrap();
        String topic = servers.unique("delivered");
        DeliveredLog log = prepared(bootstrap, topic, SHARDS);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        topic + "-writer"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            for (int shard = 0; shard < SHARDS; shard++) {
                for (long floor : new long[] {shard * 100L, shard * 100L + 1}) {
                    producer.beginTransaction();
                    producer.send(log.record(shard, 0, DeliveredRecord.encode(List.of(), floor)));
                    producer.commitTransaction();
                }
                producer.beginTransaction(); // an aborted record after them is never what a shard reads
                producer.send(log.record(shard, 0, DeliveredRecord.encode(List.of(), 999_999)));
                producer.abortTransaction();
            }
        }
        ExecutorService opens = Executors.newFixedThreadPool(SHARDS);
        try {
            for (int round = 0; round < 3; round++) {
                List<CompletableFuture<Long>> floors = new ArrayList<>();
                for (int shard = 0; shard < SHARDS; shard++) {
                    int s = shard;
                    floors.add(CompletableFuture.supplyAsync(() -> log.latest(s).intakeFloor(), opens));
                }
                for (int shard = 0; shard < SHARDS; shard++) {
                    assertEquals(shard * 100L + 1, floors.get(shard).get(60, TimeUnit.SECONDS), "shard " + shard);
                }
            }
        } finally {
            opens.shutdownNow();
            log.close();
        }
        assertThrows(IllegalStateException.class, () -> log.latest(0), "a closed log reads nothing");
    }

    /**
     * A shard's owner reads again, after fencing its other writers, what every record committed since its last read
     * lists: two writers' records in turn, each listing only its own deliveries, read together; an aborted record is
     * not; a read from its end finds nothing new.
     */
    @Test
    void aReadFromAnOffsetListsWhatEveryCommittedRecordSinceThenLists(TestServers servers) throws Exception {
        String bootstrap = servers.kafkaBootstrap();
        String topic = servers.unique("delivered-since");
        try (DeliveredLog log = prepared(bootstrap, topic, 2);
                KafkaProducer<byte[], byte[]> owner = writer(bootstrap, topic + "-owner");
                KafkaProducer<byte[], byte[]> other = writer(bootstrap, topic + "-other")) {
            commit(owner, log.record(1, 0, DeliveredRecord.encode(List.of(message("before")), 5)));
            ShardLog.Read first = readUntil(log, -1, List.of("before")); // the first read: the last committed record

            commit(other, log.record(1, 0, DeliveredRecord.encode(List.of(message("theirs")), 7)));
            commit(owner, log.record(1, 0, DeliveredRecord.encode(List.of(message("mine")), 6)));
            other.beginTransaction();
            other.send(log.record(1, 0, DeliveredRecord.encode(List.of(message("aborted")), 99)));
            other.abortTransaction();

            // both writers' records since the first read, never the aborted one
            ShardLog.Read since = readUntil(log, first.end(), List.of("mine", "theirs"));
            assertEquals(7, since.contents().intakeFloor(), "the highest floor");
            assertEquals(List.of("before", "mine", "theirs"), ids(log.read(1, -1)), "the tail's records, all of them");
            assertEquals(List.of(), ids(log.read(1, since.end())), "nothing committed since");
        }
    }

    /**
     * A record lists its own transaction's deliveries and points to the oldest earlier record still needed: a read
     * follows the newest pointer of each chain back (and no further), and reads records of the version before
     * pointers.
     */
    @Test
    void aReadFollowsTheLastRecordsPointersBack(TestServers servers) throws Exception {
        String bootstrap = servers.kafkaBootstrap();
        String topic = servers.unique("delivered-chain");
        try (DeliveredLog log = prepared(bootstrap, topic, 2);
                KafkaProducer<byte[], byte[]> owner = writer(bootstrap, topic + "-owner")) {
            commit(owner, log.record(1, 0, versionTwo("old"))); // a bridge before pointers wrote it
            assertEquals(List.of("old"), ids(readUntil(log, -1, List.of("old"))));
            long whole = commit(
                    owner, log.record(1, 1, DeliveredRecord.encode(List.of(message("a"), message("b")), 5, -1, 9)));
            long c = commit(owner, log.record(1, 2, DeliveredRecord.encode(List.of(message("c")), 6, whole, 9)));
            List<String> since = new ArrayList<>(List.of("c"));
            for (int i = 0; i < 24; i++) { // a record and a commit marker each: the tail no longer reaches c
                since.add("x" + i);
                commit(owner, log.record(1, 3 + i, DeliveredRecord.encode(List.of(message("x" + i)), 7, c, 9)));
            }
            since.sort(null);
            assertEquals(since, ids(readUntil(log, -1, since)), "c's pointer to a and b is older news: not followed");
            commit(owner, log.record(1, 27, DeliveredRecord.encode(List.of(message("e")), 8, whole, 9)));
            since.addAll(List.of("a", "b", "e"));
            since.sort(null);
            ShardLog.Read chain = readUntil(log, -1, since);
            assertEquals(8, chain.contents().intakeFloor());
            // an owner reading from an offset follows the pointers of what it reads, too
            assertEquals(since, ids(log.read(1, c + 1)));
        }
    }

    /** The delivered log {@code topic} of {@code shards} partitions, created, and a reader of it. */
    private static DeliveredLog prepared(String bootstrap, String topic, int shards) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            DeliveredLogTopic.prepare(admin, topic, shards, Optional.of((short) 1), Time.SYSTEM);
        }
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new DeliveredLog(topic, consumer, 30_000, Time.SYSTEM);
    }

    /**
     * Reads shard 1 from {@code from} until it lists {@code expected}: a commit returns before its markers are written,
     * and until then the last stable offset, where a read ends, may lie before the committed record.
     */
    private static ShardLog.Read readUntil(DeliveredLog log, long from, List<String> expected) {
        ShardLog.Read[] read = {null};
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> {
                    read[0] = log.read(1, from);
                    return ids(read[0]).equals(expected);
                });
        return read[0];
    }

    private static KafkaProducer<byte[], byte[]> writer(String bootstrap, String transactionalId) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        transactionalId),
                new ByteArraySerializer(),
                new ByteArraySerializer());
        producer.initTransactions();
        return producer;
    }

    /** Commits {@code record} in a transaction of its own; returns its offset. */
    private static long commit(
            KafkaProducer<byte[], byte[]> producer,
            org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> record)
            throws Exception {
        producer.beginTransaction();
        java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> sent = producer.send(record);
        producer.commitTransaction();
        return sent.get(30, TimeUnit.SECONDS).offset();
    }

    /** A record as bridges before pointers wrote it (version 2): a floor and every message in full. */
    private static byte[] versionTwo(String id) throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(2);
            out.writeLong(3);
            out.writeInt(1);
            out.writeUTF(id);
            out.writeUTF(message(id).origin());
            out.writeLong(0);
        }
        return bytes.toByteArray();
    }

    private static Sends.Message message(String id) {
        return new Sends.Message(id, "intake/1/" + id.length(), 0);
    }

    private static List<String> ids(ShardLog.Read read) {
        return read.contents().messages().stream()
                .map(Sends.Message::id)
                .sorted()
                .toList();
    }
}
