package io.delaybridge.bridge.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.time.Time;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link OffsetReader} on the real broker: what the log no longer holds (below its start, an aborted record read past,
 * beyond its end) is reported to the thaw and absent for the message API, a slice fetched again is read again, a
 * broker that answers nothing fails the read in time, and a reader woken before its first read stops. The plan it
 * follows is tested on its own in FetchPlanTest.
 */
@ExtendWith(RealServersExtension.class)
class OffsetReaderIT {

    private static String bootstrap;
    private static String topic;

    /**
     * One partition from log start 3 to end 9: offsets 0-2 deleted, 3 and 4 plain, 5 a record of an aborted
     * transaction and 6 its abort marker, 7 and 8 plain.
     */
    @BeforeAll
    static void log(TestServers servers) throws Exception {
        bootstrap = servers.kafkaBootstrap();
        topic = servers.unique("offset-reader");
        TopicPartition p0 = new TopicPartition(topic, 0);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> plain = producer(null)) {
                for (int i = 0; i < 5; i++) {
                    plain.send(new ProducerRecord<>(topic, new byte[1])).get();
                }
            }
            admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> transactional = producer(topic + "-tx")) {
                transactional.initTransactions();
                transactional.beginTransaction();
                transactional.send(new ProducerRecord<>(topic, new byte[1])).get();
                transactional.abortTransaction();
            }
            // The coordinator writes the abort marker after abortTransaction returns: wait for it at offset 6, or
            // the plain records below would take 6 and 7 and the marker would come after them.
            awaitEnd(admin, p0, 7);
            try (KafkaProducer<byte[], byte[]> plain = producer(null)) {
                for (int i = 0; i < 2; i++) {
                    plain.send(new ProducerRecord<>(topic, new byte[1])).get();
                }
            }
            assertEquals(
                    9,
                    admin.listOffsets(Map.of(p0, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                            .partitionResult(p0)
                            .get(30, TimeUnit.SECONDS)
                            .offset(),
                    "the log as described");
        }
    }

    private static void awaitEnd(Admin admin, TopicPartition partition, long end) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long seen;
        do {
            seen = admin.listOffsets(Map.of(partition, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .partitionResult(partition)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
            if (seen == end) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        assertEquals(end, seen, "the end of " + partition + " after the abort marker, within 30 s");
    }

    private static KafkaProducer<byte[], byte[]> producer(String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (transactionalId != null) {
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** An offset reader's settings as the bridge makes them: no group, read_committed, no offset reset. */
    private static Properties readerProperties(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return props;
    }

    private static OffsetReader reader(Duration callTimeout) {
        return new OffsetReader(readerProperties(bootstrap), topic, callTimeout, Time.SYSTEM);
    }

    private static List<OffsetReader.Position> positions(long... offsets) {
        return LongStream.of(offsets)
                .mapToObj(o -> new OffsetReader.Position(0, o))
                .toList();
    }

    @Test
    void theThawIsToldWhatTheLogNoLongerHolds() {
        try (OffsetReader reader = reader(Duration.ofSeconds(30))) {
            OffsetReader.Fetched fetched = reader.fetch(positions(2, 4, 5, 7, 9));
            assertEquals(5, fetched.covered());
            assertEquals(
                    List.of(4L, 7L),
                    fetched.records().stream().map(ConsumerRecord::offset).toList());
            assertEquals(Map.of(0, List.of(2L, 5L, 9L)), fetched.lost(), "below the start, read past, beyond the end");
        }
    }

    @Test
    void aSliceFetchedAgainIsReadAgainNotTakenForGone() {
        try (OffsetReader reader = reader(Duration.ofSeconds(30))) {
            assertEquals(Map.of(), reader.fetch(positions(4, 7)).lost());
            // the thaw's store failed (Redis restarting): it fetches the same slice again
            OffsetReader.Fetched again = reader.fetch(positions(4, 7));
            assertEquals(Map.of(), again.lost(), "read before, so not gone");
            assertEquals(
                    List.of(4L, 7L),
                    again.records().stream().map(ConsumerRecord::offset).toList());
        }
    }

    @Test
    void theApiGetsTheRecordsTheLogHoldsInAnyOrder() {
        try (OffsetReader reader = reader(Duration.ofSeconds(30))) {
            Map<OffsetReader.Position, ConsumerRecord<byte[], byte[]>> read =
                    reader.read(positions(9, 7, 2, 4, 5, 4), Duration.ofSeconds(30));
            assertEquals(Set.copyOf(positions(4, 7)), read.keySet(), "a missing position is absent");
            assertEquals(7, read.get(new OffsetReader.Position(0, 7)).offset());
        }
    }

    @Test
    void aBrokerThatAnswersNothingFailsTheReadInTime() throws Exception {
        // a listener that takes connections and never answers, as a hung broker does
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + silent.getLocalPort();
            Duration callTimeout = Duration.ofSeconds(60);
            try (OffsetReader api = new OffsetReader(readerProperties(address), topic, callTimeout, Time.SYSTEM)) {
                long start = System.nanoTime();
                assertThrows(TimeoutException.class, () -> api.read(positions(5), Duration.ofMillis(300)));
                long tookMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
                // the request's limit (300 ms) ends the read, not the call's (60 s): half of that is the bar
                assertTrue(
                        tookMillis < callTimeout.toMillis() / 2, "the request's limit, not the call's: " + tookMillis);
            }
            try (OffsetReader thaw =
                    new OffsetReader(readerProperties(address), topic, Duration.ofMillis(300), Time.SYSTEM)) {
                assertThrows(
                        TimeoutException.class, () -> thaw.fetch(positions(5)), "retried later, nothing reported lost");
            }
        }
    }

    @Test
    void aReaderWokenBeforeItsFirstReadStops() {
        try (OffsetReader reader = reader(Duration.ofSeconds(30))) {
            reader.wakeup();
            assertThrows(WakeupException.class, () -> reader.fetch(positions(4)));
        }
    }
}
