package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Purges expired records every {@code inbox.purge.interval}, each wait drawn within 20 % of it
 * (the first within the whole interval), so a fleet's instances do not purge in step. Purge is
 * idempotent, so every instance may run it. A failed purge is logged and counted by the inbox's
 * metrics, and the next one runs as planned.
 */
public final class InboxPurgeScheduler implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(InboxPurgeScheduler.class);

    private final Inbox inbox;
    private final Duration interval;
    private @Nullable ScheduledExecutorService executor;
    private volatile long purges;

    /** Purges {@code inbox} every {@code interval}, give or take 20 %. */
    public InboxPurgeScheduler(Inbox inbox, Duration interval) {
        this.inbox = inbox;
        this.interval = InboxProperties.positive(interval, "inbox.purge.interval");
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "inbox-purge");
            thread.setDaemon(true);
            return thread;
        });
        schedule(executor, (long)
                (interval.toMillis() * ThreadLocalRandom.current().nextDouble()));
    }

    private void schedule(ScheduledExecutorService on, long delayMillis) {
        on.schedule(
                () -> {
                    purgeOnce();
                    long next = (long) (interval.toMillis()
                            * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
                    if (!on.isShutdown()) {
                        schedule(on, Math.max(1, next));
                    }
                },
                delayMillis,
                TimeUnit.MILLISECONDS);
    }

    private void purgeOnce() {
        try {
            long removed = inbox.purge();
            purges++;
            if (log.isDebugEnabled()) {
                log.debug("inbox: purged " + removed + " expired records of " + inbox.consumer());
            }
        } catch (RuntimeException e) {
            log.warn("inbox: the purge failed; the next one runs in about " + interval, e);
        }
    }

    /** How many purges ran to completion. */
    public long purges() {
        return purges;
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }
}
