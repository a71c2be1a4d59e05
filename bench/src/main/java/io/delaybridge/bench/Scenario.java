package io.delaybridge.bench;

/** One scenario of the benchmark: measures on a {@link BenchRun} and puts its result lines there. */
interface Scenario {

    void run() throws Exception;
}
