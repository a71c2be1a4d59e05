package io.delaybridge.bridge.admin.api;

/**
 * The API's settings as plain values (built by {@code config.ApiFactory}).
 *
 * @param maxBodyBytes     larger request bodies are refused with 413
 * @param maxBulkCancel    the highest limit of one bulk cancel
 * @param maxBulkScan      pending messages one bulk cancel examines at most
 * @param maxReplay        the highest limit of one deadletter replay
 * @param maxPumpLagMillis health: the longest a message may be overdue
 * @param maxClockSkewMillis health: the largest tolerated difference between this host's clock and Redis'
 */
public record ApiSettings(
        Credentials credentials,
        boolean authenticateReads,
        long maxBodyBytes,
        int maxBulkCancel,
        int maxBulkScan,
        int maxReplay,
        long maxPumpLagMillis,
        long maxClockSkewMillis,
        boolean statusPage) {}
