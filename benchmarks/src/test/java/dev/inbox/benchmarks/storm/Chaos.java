package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.tck.FaultProxy;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Network faults through a {@link FaultProxy}, scheduled by traffic rather than by the clock, so
 * that they land while deliveries are in flight however fast the store is: after {@code warmUp}
 * replies, one reply in 200 is lost, all connections are cut every {@code cutEvery} replies, and
 * the server is unreachable for 500 ms every {@code outageEvery} replies. Counts what it injected
 * and the traffic at each first injection, so a test can check that traffic went on after each.
 */
final class Chaos implements AutoCloseable {

    private final FaultProxy proxy;
    private final long warmUp;
    private final long cutEvery;
    private final long outageEvery;
    private final Thread thread;
    private final AtomicLong cuts = new AtomicLong();
    private final AtomicLong outages = new AtomicLong();
    private volatile long lossesFrom = -1;
    private volatile long firstCutAt = -1;
    private volatile long firstOutageEndedAt = -1;
    private volatile boolean running = true;

    Chaos(FaultProxy proxy, long warmUp, long cutEvery, long outageEvery) {
        this.proxy = proxy;
        this.warmUp = warmUp;
        this.cutEvery = cutEvery;
        this.outageEvery = outageEvery;
        this.thread = new Thread(this::loop, "storm-chaos");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            while (running && proxy.repliesForwarded() < warmUp) {
                Thread.sleep(2);
            }
            lossesFrom = proxy.repliesForwarded();
            proxy.loseEveryNthReply(200);
            long lastCut = lossesFrom;
            long lastOutage = lossesFrom;
            while (running) {
                Thread.sleep(2);
                long traffic = proxy.repliesForwarded();
                if (traffic - lastCut >= cutEvery) {
                    proxy.cutConnections();
                    cuts.incrementAndGet();
                    lastCut = traffic;
                    if (firstCutAt < 0) {
                        firstCutAt = traffic;
                    }
                }
                if (traffic - lastOutage >= outageEvery) {
                    proxy.refuse();
                    outages.incrementAndGet();
                    Thread.sleep(500);
                    proxy.accept();
                    lastOutage = proxy.repliesForwarded();
                    if (firstOutageEndedAt < 0) {
                        firstOutageEndedAt = lastOutage;
                    }
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

    /** What was injected, and the traffic, for assertion messages and the reliability table. */
    String injected() {
        return proxy.repliesLost() + " replies lost, " + cuts.get() + " cuts, " + outages.get()
                + " outages of 500 ms, over " + proxy.repliesForwarded() + " replies";
    }

    /**
     * Asserts that every kind of fault was injected and that the storm's traffic went on after the
     * first of each: replies lost, connections cut, and an outage the clients had to come back from.
     */
    void assertEveryKindHitTraffic() {
        long end = proxy.repliesForwarded();
        assertThat(proxy.repliesLost()).as("replies lost: %s", injected()).isPositive();
        assertThat(cuts.get()).as("connection cuts: %s", injected()).isPositive();
        assertThat(outages.get()).as("outages: %s", injected()).isPositive();
        assertThat(end)
                .as("traffic after the first lost reply, cut and outage: %s", injected())
                .isGreaterThan(Math.max(lossesFrom, Math.max(firstCutAt, firstOutageEndedAt)));
    }

    /** Stops injecting and lets the store reach its server again. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
