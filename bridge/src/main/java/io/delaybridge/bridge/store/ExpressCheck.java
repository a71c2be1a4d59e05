package io.delaybridge.bridge.store;

/**
 * An intake record that would take the express path (delivered from the intake, never stored), to be checked against
 * the store: {@code id} is its default id, {@code dueAt} its due time (epoch ms).
 */
public record ExpressCheck(String id, long dueAt) {}
