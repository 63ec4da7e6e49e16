package dev.inbox.tck.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * Consumer<String, String> consumer = outage.kafkaConsumer(Consumer.class, kafkaConsumer);
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
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

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
     * Starts the outage for the calls {@code thread} makes, and for no other thread's, for good: a
     * consumer that dies while the others go on — as a killed process, whose client commits
     * nothing more, not even from a callback its own close runs (a rebalance listener's commit of
     * pending offsets).
     */
    public void beginFor(Thread thread) {
        threads.add(thread);
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
            During instead = on || threads.contains(Thread.currentThread()) ? calls.get(method.getName()) : null;
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
     * {@code consumer}, a Kafka {@code Consumer}, behind this outage ({@link #wrap}): while it lasts,
     * {@code poll} waits ({@link #idle}) and finds nothing, and {@code commitSync} throws Kafka's
     * {@code TimeoutException}, as they do while a Kafka client cannot reach its broker. The kit
     * does not depend on kafka-clients: it finds those classes through {@code type}'s.
     *
     * @param type {@code org.apache.kafka.clients.consumer.Consumer}
     * @throws IllegalArgumentException when {@code type} is not Kafka's {@code Consumer}
     */
    public <T> T kafkaConsumer(Class<? super T> type, T consumer) {
        Object nothing;
        Class<?> timeout;
        try {
            nothing = type.getMethod("poll", Duration.class)
                    .getReturnType()
                    .getMethod("empty")
                    .invoke(null);
            timeout = Class.forName("org.apache.kafka.common.errors.TimeoutException", false, type.getClassLoader());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("not Kafka's Consumer: " + type.getName(), e);
        }
        return wrap(
                type,
                consumer,
                Map.of(
                        "poll",
                        args -> idle(
                                args[0] instanceof Duration wait ? wait : Duration.ofMillis((Long) args[0]), nothing),
                        "commitSync",
                        args -> {
                            throw (Exception) timeout.getConstructor(String.class)
                                    .newInstance("adapter kit: the broker connection is cut");
                        }));
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
