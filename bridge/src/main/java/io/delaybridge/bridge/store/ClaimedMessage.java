package io.delaybridge.bridge.store;

/** A message taken into flight by a claim: deliver it, then ack, retry or deadletter it. */
public record ClaimedMessage(MessageRef ref, long dueAt, int attempt, byte[] envelope) {}
