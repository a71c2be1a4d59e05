package io.delaybridge.checker;

import java.util.List;

/**
 * The campaign's lost records sorted by {@link FarLossCheck}, the deletions {@code delete-far} made, how many ERROR
 * lines of far records found gone the bridges logged, and how many records such a line named that arrived all the same
 * (a false alarm, not a loss).
 */
record FarLoss(FarLossCheck.Result check, List<String> deletions, int errorLines, long namedButArrived) {

    static final FarLoss NONE = new FarLoss(FarLossCheck.Result.NONE, List.of(), 0, 0);
}
