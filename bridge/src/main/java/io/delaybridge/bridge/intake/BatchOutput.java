package io.delaybridge.bridge.intake;

import io.delaybridge.bridge.log.RefusedRecords;
import io.delaybridge.bridge.probe.PipelineProbe;

/**
 * Where a stored batch's parts go once it completes: its refused records to the deadletter topic, its express records
 * to the express path, its counts to the meters, and the probe told that a batch is stored before its commit.
 */
record BatchOutput(RefusedRecords refused, IntakeExpress express, IntakeMetrics metrics, PipelineProbe probe) {}
