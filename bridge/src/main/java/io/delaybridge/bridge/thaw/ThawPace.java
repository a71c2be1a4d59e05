package io.delaybridge.bridge.thaw;

/**
 * How much the thaw takes on: {@code windowMillis}, the hot window (hours beginning within it of Redis' clock are
 * thawed; negative: all of them); {@code maxRecords}, the most entries fetched and stored in one thaw call; {@code
 * aheadPerSecond}, records thawed a second at most while their hour has not begun ({@code intake.thawAheadRate}; 0:
 * no limit).
 */
record ThawPace(long windowMillis, int maxRecords, int aheadPerSecond) {}
