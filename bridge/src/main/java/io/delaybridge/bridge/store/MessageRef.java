package io.delaybridge.bridge.store;

/** A message in a shard as the store addresses it: its id and the member it is stored under. */
public record MessageRef(String id, byte[] member) {}
