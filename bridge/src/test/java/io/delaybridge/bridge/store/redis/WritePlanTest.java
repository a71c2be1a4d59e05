package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delaybridge.bridge.store.FarEntry;
import io.delaybridge.bridge.store.FarHour;
import io.delaybridge.bridge.store.FarStore;
import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.ShardRouter;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import io.delaybridge.schemas.IntakeOrigin;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batch planner without Redis: which script calls a batch becomes, in which order, with which arguments. */
class WritePlanTest {

    private static final String TOPIC = "delay-intake";
    private final RedisKeys keys = new RedisKeys("dq", TOPIC, 4);
    private final WritePlan plan = new WritePlan(keys, new ShardRouter(TOPIC, 4), "inc-1", "SPUBLISH");

    private static WriteOp.Schedule record(int partition, long offset) {
        return new WriteOp.Schedule(
                TOPIC + "-" + partition + "-" + offset, 1_000, new IntakeOrigin(TOPIC, partition, offset), new byte[] {1
                });
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void marksGoIntoTheirHomeShardOrOnAClusterIntoEveryShard() {
        List<PositionMark> marks = List.of(
                new PositionMark(1, PositionMark.UNKNOWN, 10), new PositionMark(5, 40, 42), new PositionMark(2, 7, 9));
        List<WritePlan.Call> home = plan.marks(marks, false);
        assertEquals(List.of(1, 2), home.stream().map(WritePlan.Call::shard).toList(), "partition 5 of 4 shards: 1");
        assertArrayEquals(new int[] {0, 1}, home.get(0).positions());
        assertEquals(
                List.of("inc-1", "1", "", "10", "5", "40", "42"),
                java.util.Arrays.stream(home.get(0).args())
                        .map(WritePlanTest::text)
                        .toList());
        assertEquals("dq:{delay-intake:1}:pos", text(home.get(0).keys()[0]));
        List<WritePlan.Call> every = plan.marks(marks, true);
        assertEquals(
                List.of(0, 1, 2, 3), every.stream().map(WritePlan.Call::shard).toList());
        every.forEach(c -> assertArrayEquals(new int[] {0, 1, 2}, c.positions()));
    }

    @Test
    void schedulesOfAShardShareACallUntilACancelOfThatShardClosesIt() {
        List<WritePlan.Call> calls = plan.plan(List.of(
                record(1, 1),
                record(2, 1),
                record(1, 2),
                new WriteOp.Cancel(TOPIC + "-1-9"),
                record(1, 3),
                record(2, 2)));
        assertEquals(
                List.of(Script.SCHEDULE, Script.SCHEDULE, Script.CANCEL, Script.SCHEDULE),
                calls.stream().map(WritePlan.Call::script).toList());
        assertArrayEquals(new int[] {0, 2}, calls.get(0).positions());
        assertArrayEquals(new int[] {1, 5}, calls.get(1).positions(), "shard 2's call stays open across the cancel");
        assertArrayEquals(new int[] {3}, calls.get(2).positions());
        assertArrayEquals(new int[] {4}, calls.get(3).positions());
        assertEquals(
                List.of(1, 2, 1, 1), calls.stream().map(WritePlan.Call::shard).toList());
    }

    @Test
    void aScheduleCallCarriesTheShardsKeysChannelIncarnationAndPublishCommand() {
        WritePlan.Call call = plan.plan(List.of(record(3, 7), record(3, 8))).get(0);
        assertEquals(text(keys.shard(3).due()), text(call.keys()[0]));
        for (byte[] key : call.keys()) {
            assertEquals(true, text(key).startsWith("dq:{delay-intake:3}:"), text(key));
        }
        assertEquals(keys.shard(3).wakeChannel(), text(call.args()[0]));
        assertEquals("inc-1", text(call.args()[1]));
        assertEquals(TOPIC + "/3", text(call.args()[2]));
        assertEquals("SPUBLISH", text(call.args()[3]));
        assertEquals("", text(call.args()[4]), "the intake's writes are no thaw");
        assertEquals("", text(call.args()[5]), "unfenced: no epoch held for the shard");
        assertEquals(6 + 10 * 2, call.args().length);
    }

    @Test
    void theIntakesWritesCarryTheEpochHeldForTheirShardAndAThawItsOwn() {
        plan.fenceWrites(shard -> shard == 3 ? 17 : -1);
        List<WritePlan.Call> calls = plan.plan(List.of(record(3, 7), record(1, 8)));
        assertEquals("17", text(calls.get(0).args()[5]), "shard 3 is held with epoch 17");
        assertEquals("", text(calls.get(1).args()[5]), "shard 1 is not held here");
        WritePlan.Call thaw = plan.thaw(
                        3,
                        18,
                        List.of(new WriteOp.Schedule(
                                TOPIC + "-3-7", 1_000, new IntakeOrigin(TOPIC, 3, 7), new byte[] {1})))
                .get(0);
        assertEquals("18", text(thaw.args()[4]));
        assertEquals("", text(thaw.args()[5]), "a thaw is fenced by its own epoch");
    }

    @Test
    void farSchedulesNameTheirHourAndIdHashOnceAndCarryEntryAndVersion() {
        long due = 500 * FarEntry.HOUR_MILLIS + 1_234;
        String id = "order-1";
        int shard = new ShardRouter(TOPIC, 4).shardOf(id);
        WriteOp.Schedule first = new WriteOp.Schedule(id, due, new IntakeOrigin(TOPIC, 2, 70), null, 42L, true);
        WriteOp.Schedule second = new WriteOp.Schedule(id, due + 1, new IntakeOrigin(TOPIC, 2, 71), null, 43L, true);
        WritePlan.Call call = plan.plan(List.of(first, second)).get(0);
        assertEquals(10 + 2, call.keys().length, "the hour string and the id hash, each once");
        assertEquals(text(keys.farHour(shard, 500)), text(call.keys()[10]));
        assertEquals(text(keys.farIds(shard, new ShardRouter(TOPIC, 4).member(id))), text(call.keys()[11]));
        int m = 6; // the first message's arguments
        assertEquals(0, call.args()[m + 3].length, "a far message carries no value");
        assertArrayEquals(FarIndex.encode(new FarEntry(2, 70, due)), call.args()[m + 5]);
        assertEquals("11", text(call.args()[m + 6]));
        assertArrayEquals(WritePlan.farVersion(new FarEntry(2, 70, due), 42L), call.args()[m + 7]);
        assertEquals("12", text(call.args()[m + 8]));
        assertEquals("11", text(call.args()[m + 10 + 6]), "the second names the same hour key");
        assertEquals(0, call.args()[m + 9].length, "the intake's writes mark nothing");
        assertEquals(20, call.args()[m + 7].length);
    }

    @Test
    void anOwnersThawNamesTheHourItReadAndCarriesEachRecordsSlots() {
        long hour = 500;
        long due = hour * FarEntry.HOUR_MILLIS + 9;
        WriteOp.Schedule record =
                new WriteOp.Schedule(TOPIC + "-3-7", due, new IntakeOrigin(TOPIC, 3, 7), new byte[] {1}, 5L);
        FarHour.Slot first = new FarHour.Slot(new FarEntry(3, 7, due), 24);
        FarHour.Slot again = new FarHour.Slot(new FarEntry(3, 7, due), 96);
        WritePlan.Call call = plan.thaw(3, 18, List.of(record), hour, List.of(List.of(first, again)))
                .get(0);
        assertEquals(10 + 1, call.keys().length, "the hour's string");
        assertEquals(text(keys.farHour(3, hour)), text(call.keys()[10]));
        int m = 6;
        assertEquals(0, call.args()[m + 5].length, "it goes hot: no entry to append");
        assertEquals("11", text(call.args()[m + 6]), "the hour it was read from");
        byte[] marks = call.args()[m + 9];
        assertEquals(32, marks.length, "two slots of 16 bytes");
        assertArrayEquals(FarIndex.mark(first), Arrays.copyOfRange(marks, 0, 16));
        assertArrayEquals(FarIndex.mark(again), Arrays.copyOfRange(marks, 16, 32));
        assertEquals(96, ByteBuffer.wrap(marks, 16, 4).getInt(), "the position leads each mark");

        WritePlan.Call admin = plan.thaw(3, FarStore.ADMIN, List.of(record)).get(0);
        assertEquals(0, admin.args()[m + 9].length, "an operator's thaw marks nothing");
        assertThrows(
                IllegalArgumentException.class,
                () -> plan.thaw(3, 18, List.of(record), hour + 1, List.of(List.of(first))),
                "a slot of another hour");
    }

    @Test
    void aLongRunOfOneShardIsSplitIntoBoundedCalls() {
        List<WriteOp> ops = new ArrayList<>();
        for (int i = 0; i < WritePlan.MAX_SCHEDULES_PER_CALL + 10; i++) {
            ops.add(record(0, i));
        }
        List<WritePlan.Call> calls = plan.plan(ops);
        assertEquals(
                List.of(WritePlan.MAX_SCHEDULES_PER_CALL, 10),
                calls.stream().map(c -> c.ops().size()).toList());
    }
}
