package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where work in hand is kept alive while it runs — a claim renewed, a queue message's visibility
 * extended — for every adapter alike: periodic ticks on a bounded pool, each task for at most a
 * maximum in-hand time. The inbox's lease renewals, the SQS loop's and the Spring SQS listener's
 * visibility extensions all run here.
 *
 * <p>The {@linkplain #shared() shared} service runs on {@value #THREADS} daemon threads per JVM, so
 * that a tick that hangs (a slow store or broker call, a call without a timeout) holds back no other
 * task's; {@link #on(ScheduledExecutorService)} runs on an executor of your own.
 *
 * <p>A task ends when its future is cancelled, when its tick throws {@link CancellationException}
 * (the tick's way to say "no more": the work ended, the lease was taken over), or at its first tick
 * after its maximum in-hand time, when it is abandoned: work that never returns (a hung call, a
 * future never completed) must not hold its event or message from everyone for ever. Any other
 * {@link RuntimeException} out of a tick is logged and the next tick runs: thrown out of a scheduled
 * task it would end that task's renewals unseen.
 */
public final class Renewals {

    private static final System.Logger LOG = System.getLogger(Renewals.class.getName());

    /** The shared service's threads. */
    static final int THREADS = 4;

    private static final Renewals SHARED = new Renewals(create());

    private final ScheduledExecutorService executor;

    private Renewals(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** The service every adapter uses unless told otherwise: {@value #THREADS} daemon threads per JVM. */
    public static Renewals shared() {
        return SHARED;
    }

    /**
     * A service on {@code executor} (not shut down by this class).
     *
     * @throws IllegalArgumentException if null
     */
    public static Renewals on(ScheduledExecutorService executor) {
        return new Renewals(requireNonNull(executor, "executor"));
    }

    /**
     * How long a task may keep its work alive: since {@code sinceNanos} (a {@link System#nanoTime()}
     * reading, when the work was taken in hand) for at most {@code max}; past it, {@code abandoned}
     * is called once (to log and count it) and the task ends.
     */
    public record InHand(long sinceNanos, Duration max, Runnable abandoned) {

        /**
         * @throws IllegalArgumentException if {@code max} is null or not positive, or {@code
         *     abandoned} is null
         */
        public InHand {
            requirePositive(max, "max");
            requireNonNull(abandoned, "abandoned");
        }

        boolean over(long nowNanos) {
            return nowNanos - sinceNanos > max.toNanos();
        }
    }

    /**
     * Runs {@code tick} every {@code every}, the first time after {@code first}, until the task ends
     * as the class describes.
     *
     * @return the task's future: cancel it when the work is done
     * @throws IllegalArgumentException if an argument is null, {@code every} is not positive or
     *     {@code first} is negative
     */
    public ScheduledFuture<?> every(Duration every, Duration first, InHand inHand, Runnable tick) {
        requirePositive(every, "every");
        requireNonNull(first, "first");
        if (first.isNegative()) {
            throw new IllegalArgumentException("first must not be negative but was " + first);
        }
        requireNonNull(inHand, "inHand");
        requireNonNull(tick, "tick");
        return executor.scheduleWithFixedDelay(
                () -> run(inHand, tick), first.toNanos(), every.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static void run(InHand inHand, Runnable tick) {
        if (inHand.over(System.nanoTime())) {
            inHand.abandoned().run();
            throw new CancellationException("held for more than " + inHand.max());
        }
        try {
            tick.run();
        } catch (CancellationException end) {
            throw end;
        } catch (RuntimeException unexpected) {
            LOG.log(System.Logger.Level.WARNING, "a renewal failed; tried again at the next tick", unexpected);
        }
    }

    private static ScheduledExecutorService create() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(THREADS, task -> {
            Thread thread = new Thread(task, "inbox-renewals");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
