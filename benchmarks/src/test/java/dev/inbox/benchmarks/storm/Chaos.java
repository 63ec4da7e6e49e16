package dev.inbox.benchmarks.storm;

import dev.inbox.tck.FaultProxy;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Network faults on a schedule, through a {@link FaultProxy}, for as long as a storm runs: after a
 * quiet start (the runner's set-up: schema, pool), one reply in 200 lost, all connections cut every
 * 800 ms, and the server unreachable for 500 ms every 2 s. Counts what it injected.
 */
final class Chaos implements AutoCloseable {

    private final FaultProxy proxy;
    private final Thread thread;
    private final AtomicLong cuts = new AtomicLong();
    private final AtomicLong outages = new AtomicLong();
    private volatile boolean running = true;

    Chaos(FaultProxy proxy) {
        this.proxy = proxy;
        this.thread = new Thread(this::loop, "storm-chaos");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            Thread.sleep(1_000);
            proxy.loseEveryNthReply(200);
            for (int tick = 1; running; tick++) {
                Thread.sleep(100);
                if (tick % 8 == 0) {
                    proxy.cutConnections();
                    cuts.incrementAndGet();
                }
                if (tick % 20 == 0) {
                    proxy.refuse();
                    outages.incrementAndGet();
                    Thread.sleep(500);
                    proxy.accept();
                }
            }
        } catch (InterruptedException | IOException e) {
            // stopped
        } finally {
            proxy.loseEveryNthReply(0);
            try {
                proxy.accept();
            } catch (IOException ignored) {
                // the proxy is closed
            }
        }
    }

    /** What was injected, for assertion messages and the reliability table. */
    String injected() {
        return proxy.repliesLost() + " replies lost, " + cuts.get() + " cuts, " + outages.get() + " outages of 500 ms";
    }

    long repliesLost() {
        return proxy.repliesLost();
    }

    /** Stops injecting and lets the store reach its server again. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
