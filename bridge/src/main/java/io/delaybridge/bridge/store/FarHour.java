package io.delaybridge.bridge.store;

import java.util.List;

/**
 * What one read of a shard's far hour found: its entries sorted by (partition, offset), and how many bytes of the
 * hour's string were read (the length to hand to {@link FarStore#farThawed}, or to read on from).
 */
public record FarHour(long hour, List<FarEntry> entries, int length) {}
