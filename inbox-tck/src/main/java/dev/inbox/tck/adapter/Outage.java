package dev.inbox.tck.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A broker outage played at the client, for a harness whose client no proxy can stand in front of:
 * a Kafka client is given one address and then connects to the addresses the broker advertises,
 * so a proxy on the first would not cut the others. {@link #wrap} puts the client behind the
 * outage; while it lasts ({@link #begin()} to {@link #end()}) each call the harness named does what
 * that call does while the connection is cut (fails, or waits and finds nothing), and every other
 * call reaches the real client.
 *
 * <pre>{@code
 * Consumer<String, String> consumer = outage.wrap(Consumer.class, kafkaConsumer, Map.of(
 *         "poll", args -> Outage.idle((Duration) args[0], ConsumerRecords.empty()),
 *         "commitSync", args -> { throw new TimeoutException("the broker connection is cut"); }));
 * }</pre>
 */
public final class Outage {

    /** What one call does while the outage lasts, given the call's arguments. */
    @FunctionalInterface
    public interface During {
        /** Answers the call (or throws) instead of the real client. */
        @Nullable
        Object call(@Nullable Object[] args) throws Exception;
    }

    private volatile boolean on;

    /** Starts the outage: the named calls of every wrapped client stop reaching the broker. */
    public void begin() {
        on = true;
    }

    /** Ends the outage: every call reaches the real client again. */
    public void end() {
        on = false;
    }

    /** Whether the outage lasts. */
    public boolean isOn() {
        return on;
    }

    /**
     * {@code client} behind this outage, as {@code type} (an interface): while the outage lasts, a
     * call of a method named in {@code during} does what it maps to; every other call, and every
     * call outside the outage, goes to {@code client}.
     *
     * @throws IllegalArgumentException when {@code type} is not an interface
     */
    @SuppressWarnings("unchecked")
    public <T> T wrap(Class<? super T> type, T client, Map<String, During> during) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException("an outage wraps an interface, not " + type.getName());
        }
        Map<String, During> calls = Map.copyOf(during);
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            During instead = on ? calls.get(method.getName()) : null;
            if (instead != null) {
                return instead.call(args);
            }
            try {
                return method.invoke(client, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /**
     * Waits as a call does that finds the broker unreachable until its timeout — at most {@code
     * timeout}, and never more than 100 ms, so a client that is stopped or woken meanwhile is not
     * kept — then returns {@code nothing}.
     */
    public static <R> R idle(Duration timeout, R nothing) throws InterruptedException {
        Thread.sleep(Math.max(0, Math.min(timeout.toMillis(), 100)));
        return nothing;
    }
}
