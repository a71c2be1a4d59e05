package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.PositionMark;
import io.delaybridge.bridge.store.StoreGapException;
import io.delaybridge.bridge.store.redis.WritePlan.Call;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The answers of a write batch's {@code mark.lua} calls, the first answer of each call kept (a mark that ran before a
 * NOSCRIPT of an earlier call runs again in the re-run; its first answer stays): which partitions' stored positions
 * were below what the intake expected.
 */
final class MarkAnswers {

    private final List<PositionMark> marks;
    private final Set<Integer> answered = new HashSet<>();
    private final long[] gapAt;

    MarkAnswers(List<PositionMark> marks) {
        this.marks = marks;
        this.gapAt = new long[marks.size()];
        Arrays.fill(gapAt, Long.MAX_VALUE);
    }

    /** Files the reply of call number {@code call} of the batch, {@code c}: {code1, position1, code2, ...}. */
    synchronized void answer(int call, Call c, Object reply) {
        List<?> codes = (List<?>) reply;
        long head = codes.isEmpty() ? ScriptCodes.INVALID_ARGUMENT : (Long) codes.get(0);
        if (head < 0 || codes.size() != 2 * c.positions().length) {
            throw ScriptCodes.failure(
                    head < 0 ? head : ScriptCodes.INVALID_ARGUMENT,
                    "position mark of intake" + " partition "
                            + marks.get(c.positions()[0]).partition(),
                    c.shard(),
                    -1,
                    null);
        }
        if (!answered.add(call)) {
            return;
        }
        for (int j = 0; j < c.positions().length; j++) {
            if ((Long) codes.get(2 * j) == ScriptCodes.GAP) {
                int mark = c.positions()[j];
                gapAt[mark] = Math.min(gapAt[mark], (Long) codes.get(2 * j + 1));
            }
        }
    }

    /** The partitions whose stored position was below the expected one, with the lowest stored position found. */
    synchronized List<StoreGapException.Gap> gaps() {
        List<StoreGapException.Gap> gaps = new ArrayList<>();
        for (int i = 0; i < gapAt.length; i++) {
            if (gapAt[i] != Long.MAX_VALUE) {
                gaps.add(new StoreGapException.Gap(
                        marks.get(i).partition(), gapAt[i], marks.get(i).expected()));
            }
        }
        return gaps;
    }
}
