package io.delaybridge.bridge.pump;

/** The pump's sending parts that its outcome handling shares: the sender (and its outcomes) and the in-flight places. */
record SendPath(MessageSender sender, InFlightPlaces places) {}
