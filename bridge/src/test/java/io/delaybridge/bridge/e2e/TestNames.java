package io.delaybridge.bridge.e2e;

import io.delaybridge.testkit.TestServers;

/** Topic, group and key names of one test, unique so tests never see each other's records. */
record TestNames(String intake, String deadletter, String group, String keyPrefix) {

    static TestNames unique(TestServers servers) {
        String run = servers.unique("t");
        return new TestNames(run + "-intake", run + "-deadletter", run + "-group", run);
    }

    String target(String name) {
        return intake.replace("-intake", "-" + name);
    }
}
