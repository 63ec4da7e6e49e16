package dev.inbox.benchmarks.custom;

import dev.inbox.spi.InboxStore;
import java.lang.reflect.InvocationTargetException;
import java.util.function.Supplier;

/**
 * Builds a store of your own for the benchmarks from a class name: a public class with a public
 * no-argument constructor that implements {@code java.util.function.Supplier<InboxStore>} and
 * returns a ready store (schema created, connected). It needs nothing of this module — only
 * {@code inbox-api} — so it can live beside your store:
 *
 * <pre>{@code
 * public final class BenchSqliteStore implements Supplier<InboxStore> {
 *     public InboxStore get() {
 *         SqliteInboxStore store = SqliteInboxStore.open("/tmp/bench.db");
 *         store.createSchemaIfMissing();
 *         return store;
 *     }
 * }
 * }</pre>
 *
 * <p>The store is closed ({@link InboxStore#close()}) when the run ends.
 */
public final class CustomStores {

    private CustomStores() {}

    /** Whether {@code name} names a class (a dotted name) rather than one of the built-in stores. */
    public static boolean isClassName(String name) {
        return name.indexOf('.') > 0;
    }

    /**
     * The store the supplier class {@code className} builds.
     *
     * @throws IllegalArgumentException if the class is not on the class path, is not a {@code
     *     Supplier}, has no public no-argument constructor, or its supplier returns something that is
     *     not an {@link InboxStore}; each message says what to change
     */
    public static InboxStore create(String className) {
        Class<?> type;
        try {
            type = Class.forName(className, true, CustomStores.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException(
                    "no class " + className + " on the class path: run with your store's jar and its"
                            + " dependencies beside the benchmarks' (java -cp"
                            + " benchmarks/target/benchmarks.jar:your-store.jar:… <main class> …)",
                    e);
        }
        if (!Supplier.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(className + " is not a java.util.function.Supplier<InboxStore>: the"
                    + " benchmarks build a store of your own by calling get() on a new instance of it");
        }
        Object supplied;
        try {
            supplied = ((Supplier<?>) type.getConstructor().newInstance()).get();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalArgumentException(
                    className + " needs to be a public class with a public constructor without arguments", e);
        } catch (InstantiationException e) {
            throw new IllegalArgumentException(className + " is abstract or an interface: name a concrete class", e);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("the constructor of " + className + " failed", cause);
        }
        if (!(supplied instanceof InboxStore store)) {
            throw new IllegalArgumentException(className + ".get() returned "
                    + (supplied == null ? "null" : "a " + supplied.getClass().getName())
                    + ", not an InboxStore");
        }
        return store;
    }
}
