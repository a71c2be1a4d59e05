package io.delaybridge.bridge.thaw;

import static io.delaybridge.bridge.thaw.ThawRig.HOUR;
import static io.delaybridge.bridge.thaw.ThawRig.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.health.HealthCheck;
import io.delaybridge.bridge.SharedJvm;
import io.delaybridge.bridge.store.ClaimedMessage;
import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.schemas.DelayHeaders;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.ErrorCode;
import io.delaybridge.testkit.RealServersExtension;
import io.delaybridge.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.slf4j.LoggerFactory;

/**
 * The thaw on the real broker and Redis: far entries put into the index point at records produced to the intake; the
 * loop reads them back by offset and stores them hot as the intake would have, removes an hour only once all of it is
 * hot, reports records the log lost, deadletters records the settings now refuse, and stops at a fenced epoch.
 */
@ExtendWith(RealServersExtension.class)
@ResourceLock(SharedJvm.LOGGING_AND_THREADS) // no bridge starts in this JVM while it runs
class ThawLoopIT {

    private static final long WINDOW = Duration.ofDays(4).toMillis();

    @Test
    void farRecordsBecomeHotAsTheIntakeWouldStoreThemAndTheirHourGoesOnlyOnceAllAre(TestServers servers)
            throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-hot")) {
            long hour = rig.store.now() / HOUR + 48; // two days ahead: inside the four-day window
            List<Long> offsets = new ArrayList<>();
            for (int i = 0; i < 23; i++) {
                long dueAt = hour * HOUR + 1_000L * (23 - i); // due order differs from offset order
                long offset = rig.produceFar(0, dueAt, i == 5 ? "order-5" : null);
                offsets.add(offset);
            }
            for (int i = 0; i < 700; i++) { // records that are not far: read through or sought past
                rig.produce(0, hour * HOUR, "hot-" + i);
            }
            long lateOffset = rig.produceFar(0, hour * HOUR + 7, null);
            // appended twice (a schedule read again after a crash): thawed once, both its entries marked
            rig.far.append(0, List.of(new FarEntry(0, offsets.get(3), hour * HOUR + 1_000L * 20)));
            int explicitShard = new ShardRouter(rig.intake, 2).shardOf("order-5");

            long epoch0 = rig.store.acquire(0);
            rig.epochs.put(0, epoch0);
            rig.epochs.put(1, rig.store.acquire(1));
            ThawLoop loop = rig.loop(rig.settings(List.of()), WINDOW, 5);
            loop.start();
            try {
                await(
                        "the hours thawed",
                        30,
                        () -> rig.store.far().farHours(0, Long.MAX_VALUE).isEmpty()
                                && rig.store.far().farHours(1, Long.MAX_VALUE).isEmpty());
            } finally {
                loop.stop();
            }
            int onShard0 = explicitShard == 0 ? 24 : 23; // records: the entry appended twice is one record

            assertEquals(List.of(onShard0), rig.far.storedAtRemoval.get(0), "all records hot before the hour went");
            assertTrue(rig.far.slices.get(0).stream().allMatch(n -> n <= 5), "at most 5 a thaw call");
            MessageAdmin messages = rig.store.messageAdmin();
            for (int i = 0; i < 23; i++) {
                String id = i == 5 ? "order-5" : rig.intake + "-0-" + offsets.get(i);
                StoredMessage stored = messages.inspect(id).orElseThrow(() -> new AssertionError(id + " is not hot"));
                assertEquals(hour * HOUR + 1_000L * (23 - i), stored.dueAt(), id);
                Envelope envelope = EnvelopeCodec.decode(stored.envelope());
                assertEquals(Envelope.origin(rig.intake, 0, offsets.get(i)), envelope.origin(), id);
                assertEquals(rig.target, envelope.target());
                assertEquals("value-" + stored.dueAt(), new String(envelope.value(), StandardCharsets.UTF_8));
            }
            assertTrue(messages.inspect(rig.intake + "-0-" + lateOffset).isPresent(), "sought past 700 records");
            assertTrue(messages.inspect("hot-0").isEmpty(), "records without a far entry are not thawed");
            await(
                    "24 thawed: the entry appended twice counts once",
                    30,
                    () -> rig.metrics.meter(ThawMetrics.THAWED).getCount() == 24);
            long lookAhead = hour * HOUR + 30_000 - rig.store.now();
            List<String> claimed = rig.store.claimAsync(0, epoch0, 100, 60_000, lookAhead).join().messages().stream()
                    .map(m -> m.ref().id())
                    .toList();
            assertEquals(onShard0, claimed.size(), "the thawed records of shard 0 are claimable, once each");
            assertTrue(claimed.contains(rig.intake + "-0-" + lateOffset), claimed.toString());
            assertEquals(0, rig.metrics.meter(ThawMetrics.LOST).getCount());
            assertTrue(new FarTierHealthCheck(() -> "on", rig.thawMetrics)
                    .execute()
                    .isHealthy());
        }
    }

    @Test
    void recordsDeletedFromTheLogBeforeTheirThawAreReportedLostNeverSkippedSilently(TestServers servers)
            throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-lost")) {
            long hour = rig.store.now() / HOUR + 30;
            List<FarEntry> entries = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                entries.add(new FarEntry(1, rig.produce(1, hour * HOUR + i, null), hour * HOUR + i));
            }
            rig.far.append(1, entries);
            rig.admin
                    .deleteRecords(Map.of(new TopicPartition(rig.intake, 1), RecordsToDelete.beforeOffset(4)))
                    .all()
                    .get(30, TimeUnit.SECONDS); // retention or an operator: offsets 0-3 are gone

            rig.epochs.put(1, rig.store.acquire(1));
            ListAppender<ILoggingEvent> log = capture();
            ThawLoop loop = rig.loop(rig.settings(List.of()), WINDOW, 100);
            loop.start();
            try {
                await(
                        "the hour thawed",
                        30,
                        () -> rig.store.far().farHours(1, Long.MAX_VALUE).isEmpty());
            } finally {
                loop.stop();
                ((Logger) LoggerFactory.getLogger(ThawMetrics.class)).detachAppender(log);
            }

            assertEquals(4, rig.metrics.meter(ThawMetrics.LOST).getCount());
            List<ILoggingEvent> errors =
                    log.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
            assertEquals(1, errors.size(), "one ERROR for the hour's lost range");
            String error = errors.get(0).getFormattedMessage();
            assertTrue(error.contains("intake partition 1, offsets 0-3"), error);
            HealthCheck.Result health = new FarTierHealthCheck(() -> "on", rig.thawMetrics).execute();
            assertFalse(health.isHealthy());
            assertTrue(health.getMessage().contains("intake partition 1 offsets 0-3"), health.getMessage());
            MessageAdmin messages = rig.store.messageAdmin();
            for (int offset = 0; offset < 10; offset++) {
                assertEquals(
                        offset >= 4,
                        messages.inspect(rig.intake + "-1-" + offset).isPresent(),
                        "offset " + offset + ": the rest of the hour is stored hot");
            }
            assertEquals(6, rig.far.stored(1));
        }
    }

    @Test
    void aRecordTheSettingsNowRefuseGoesToTheDeadletterTopicWithItsReason(TestServers servers) throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-refused")) {
            long hour = rig.store.now() / HOUR + 30;
            long offset = rig.produce(0, hour * HOUR + 1, null);
            rig.far.append(0, List.of(new FarEntry(0, offset, hour * HOUR + 1)));

            rig.epochs.put(0, rig.store.acquire(0));
            ThawLoop loop = rig.loop(rig.settings(List.of("allowed-only")), WINDOW, 100); // the target is no longer
            loop.start();
            try {
                await(
                        "the hour thawed",
                        30,
                        () -> rig.store.far().farHours(0, Long.MAX_VALUE).isEmpty());
            } finally {
                loop.stop();
            }

            ConsumerRecord<byte[], byte[]> dead = readOne(rig, rig.deadletter);
            assertEquals(
                    ErrorCode.TARGET_FORBIDDEN.name(),
                    new String(dead.headers().lastHeader(DelayHeaders.ERROR).value(), StandardCharsets.UTF_8));
            assertEquals(
                    Envelope.origin(rig.intake, 0, offset),
                    new String(dead.headers().lastHeader(DelayHeaders.ORIGIN).value(), StandardCharsets.UTF_8));
            await(
                    "one deadlettered as forbidden",
                    30,
                    () -> rig.metrics
                                    .meter("delay.deadlettered." + ErrorCode.TARGET_FORBIDDEN)
                                    .getCount()
                            == 1);
            assertEquals(0, rig.far.stored(0));
            assertTrue(rig.store
                    .messageAdmin()
                    .inspect(rig.intake + "-0-" + offset)
                    .isEmpty());
        }
    }

    @Test
    void anHourThawedAgainAfterAThawThatStoppedHalfwayStoresNothingDeliveredMeanwhile(TestServers servers)
            throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-resume")) {
            long hour = rig.store.now() / HOUR + 30;
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                ids.add(rig.intake + "-0-" + rig.produceFar(0, hour * HOUR + 1_000L * i, null));
            }
            long epoch = rig.store.acquire(0);
            rig.epochs.put(0, epoch);
            rig.epochs.put(1, rig.store.acquire(1));
            rig.far.failFromCall.set(2); // the second slice is stored, then the thaw fails before the hour goes
            ThawLoop halted = rig.loop(rig.settings(List.of()), WINDOW, 4);
            halted.start();
            try {
                await("the thaw failed after its second slice", 30, rig.far.failedAfterStoring::get);
            } finally {
                halted.stop();
            }
            assertEquals(List.of(hour), rig.store.far().farHours(0, Long.MAX_VALUE), "the hour stays");
            long lookAhead = hour * HOUR + 60_000 - rig.store.now();
            List<ClaimedMessage> delivered = rig.store
                    .claimAsync(0, epoch, 100, 60_000, lookAhead)
                    .join()
                    .messages();
            assertEquals(
                    ids.subList(0, 8),
                    delivered.stream()
                            .map(m -> m.ref().id())
                            .sorted(Comparator.comparing(ids::indexOf))
                            .toList(),
                    "two slices of four went hot");
            rig.store.ack(0, epoch, delivered.stream().map(ClaimedMessage::ref).toList());

            rig.far.failFromCall.set(0);
            long next = rig.store.acquire(0); // the next owner thaws the hour again
            rig.epochs.put(0, next);
            rig.thawUntilGone(rig.loop(rig.settings(List.of()), WINDOW, 4), 0);
            List<String> hot = rig.store.claimAsync(0, next, 100, 60_000, lookAhead).join().messages().stream()
                    .map(m -> m.ref().id())
                    .toList();
            assertEquals(
                    ids.subList(8, 12),
                    hot.stream().sorted(Comparator.comparing(ids::indexOf)).toList(),
                    "only the records the halted thaw had not stored are stored: none delivered is stored again");
        }
    }

    @Test
    void aFencedShardIsNotThawedUnderItsOldEpochAgain(TestServers servers) throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-fenced")) {
            long hour = rig.store.now() / HOUR + 30;
            long offset = rig.produce(0, hour * HOUR + 1, null);
            rig.far.append(0, List.of(new FarEntry(0, offset, hour * HOUR + 1)));
            long stale = rig.store.acquire(0);
            rig.store.acquire(0); // another instance took shard 0
            rig.epochs.put(0, stale);
            rig.epochs.put(1, rig.store.acquire(1)); // an empty shard: it shows the loop's cycles

            ThawLoop loop = rig.loop(rig.settings(List.of()), WINDOW, 100);
            loop.start();
            try {
                await("shard 0 tried", 30, () -> rig.far.reads(0) > 0);
                int reads = rig.far.reads(0);
                int cycles = rig.far.cycles.get();
                await("three more cycles", 30, () -> rig.far.cycles.get() >= cycles + 3);
                assertEquals(reads, rig.far.reads(0), "no new read of shard 0 under the fenced epoch");
            } finally {
                loop.stop();
            }
            assertEquals(List.of(hour), rig.store.far().farHours(0, Long.MAX_VALUE), "the new owner thaws the hour");
            assertEquals(0, rig.far.stored(0));
        }
    }

    @Test
    void anHourBeyondTheWindowWaitsAndWithTheWindowOffEveryHourDrains(TestServers servers) throws Exception {
        try (ThawRig rig = new ThawRig(servers, "thaw-window")) {
            long hour = rig.store.now() / HOUR + 24 * 30; // 30 days ahead: beyond the four-day window
            long offset = rig.produce(0, hour * HOUR + 1, null);
            rig.far.append(0, List.of(new FarEntry(0, offset, hour * HOUR + 1)));
            rig.epochs.put(0, rig.store.acquire(0));
            rig.epochs.put(1, rig.store.acquire(1)); // an empty shard: it shows the loop's cycles

            ThawLoop windowed = rig.loop(rig.settings(List.of()), WINDOW, 100);
            windowed.start();
            try {
                await("three cycles", 30, () -> rig.far.cycles.get() >= 3);
            } finally {
                windowed.stop();
            }
            assertEquals(0, rig.far.reads(0), "not read: its hour begins after the window");
            assertEquals(List.of(hour), rig.store.far().farHours(0, Long.MAX_VALUE));

            ThawLoop off = rig.loop(rig.settings(List.of()), -1, 100);
            off.start();
            try {
                await(
                        "the hour drained",
                        30,
                        () -> rig.store.far().farHours(0, Long.MAX_VALUE).isEmpty());
            } finally {
                off.stop();
            }
            assertTrue(rig.store
                    .messageAdmin()
                    .inspect(rig.intake + "-0-" + offset)
                    .isPresent());
        }
    }

    private static ListAppender<ILoggingEvent> capture() {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger(ThawMetrics.class)).addAppender(appender);
        return appender;
    }

    private static ConsumerRecord<byte[], byte[]> readOne(ThawRig rig, String topic) throws InterruptedException {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        rig.servers.kafkaBootstrap(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
            assertEquals(1, read.size(), "one deadletter record");
            return read.get(0);
        }
    }
}
