package dev.inbox.benchmarks.storm;

/** The work's simulated failure: the broker redelivers. */
final class SimulatedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedFailure() {
        super("simulated failure", null, false, false);
    }
}
