package io.delaybridge.bridge.pump;

/**
 * The pump's sending parts that its outcome handling shares: the queue of send outcomes, the sender, and the
 * in-flight places.
 */
record SendPath(OutcomeQueue outcomes, MessageSender sender, InFlightPlaces places) {}
