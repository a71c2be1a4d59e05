package io.delaybridge.bridge.pump;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.schemas.IntakeOrigin;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the pump makes of a stored value: a default id's envelope, stored without its origin, is delivered with the
 * origin its id names (put back in the one decode at release); bytes that are no envelope become exactly one
 * deadletter record with {@code CORRUPT_ENVELOPE} and the bytes as stored, and the shard goes on.
 */
@ExtendWith(RealServersExtension.class)
class PumpStoredValueIT {

    @Test
    void aDefaultIdsRecordGetsItsOriginBackAndBytesThatAreNoEnvelopeAreDeadletteredOnce(TestServers servers)
            throws Exception {
        try (PumpRig rig = new PumpRig(servers, "stored", true);
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers.kafkaBootstrap()))) {
            admin.createTopics(List.of(new NewTopic(rig.topic + "-dlq", Optional.of(1), Optional.empty())))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            long due = rig.store.now() - 1;
            byte[] opaque = "not an envelope".getBytes(StandardCharsets.UTF_8);
            rig.store
                    .write(List.of(
                            new WriteOp.Schedule(rig.topic + "-0-1", due, new IntakeOrigin(rig.topic, 0, 1), opaque)))
                    .get(10, TimeUnit.SECONDS);
            rig.schedule(2, due + 1);
            rig.schedule(3, due + 2);

            Pump pump = rig.pump(rig.store, new PumpSettings(100, 30_000, 1_000, 1_000, 0), Clock.systemUTC());
            pump.start();
            try {
                pump.assign(List.of(0));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rig.producer.history().size() >= 3);
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> rig.store.stats(0).pending()
                                        + rig.store.stats(0).inFlight()
                                == 0);
            } finally {
                pump.stop();
            }

            List<ProducerRecord<byte[], byte[]>> sent = rig.producer.history();
            assertEquals(3, sent.size(), "one record a message: " + sent);
            List<ProducerRecord<byte[], byte[]>> deadletters = sent.stream()
                    .filter(r -> r.topic().equals(rig.topic + "-dlq"))
                    .toList();
            assertEquals(1, deadletters.size(), "one deadletter record");
            assertEquals(ErrorCode.CORRUPT_ENVELOPE.name(), header(deadletters.get(0), DelayHeaders.ERROR));
            assertArrayEquals(opaque, deadletters.get(0).value(), "the bytes as stored");
            List<ProducerRecord<byte[], byte[]>> delivered =
                    sent.stream().filter(r -> r.topic().equals(rig.target)).toList();
            assertEquals(2, delivered.size());
            for (ProducerRecord<byte[], byte[]> record : delivered) {
                int offset = record.value()[0];
                assertEquals(rig.topic + "/0/" + offset, header(record, DelayHeaders.ORIGIN), "origin put back");
                assertEquals(rig.topic + "-0-" + offset, header(record, DelayHeaders.ID));
            }
        }
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String key) {
        Header header = record.headers().lastHeader(key);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
