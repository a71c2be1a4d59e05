package io.delaybridge.bridge.store;

import java.util.List;

/**
 * What one read of a shard's far hour found: its entries not yet thawed, sorted by (partition, offset), each with its
 * byte position in the hour's string ({@link Slot}), and how many bytes of the string were read (the length to hand to
 * {@link FarStore#farThawed}, or to read on from).
 */
public record FarHour(long hour, List<Slot> slots, int length) {

    /**
     * An entry and where it sits in its hour's string: the thaw that stores its record hot marks it thawed there, in
     * the same step ({@link FarStore#thaw(int, long, long, List, List)}).
     */
    public record Slot(FarEntry entry, int position) {}

    public FarHour {
        slots = List.copyOf(slots);
    }

    /** The entries, in the slots' order. */
    public List<FarEntry> entries() {
        return slots.stream().map(Slot::entry).toList();
    }
}
