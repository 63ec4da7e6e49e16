package dev.inbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A HikariCP pool on the test PostgreSQL ({@link TestServers#postgres()}) for the test classes
 * that register it: opened before the first test of the first of them, closed after the last test of
 * the last one still running (a static field of an abstract base class serves each of its subclasses,
 * which may run at once). Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresPool db = new PostgresPool(6);
 * }</pre>
 *
 * <p>Needs HikariCP and the JUnit Jupiter API on the test class path (optional dependencies here).
 */
public final class PostgresPool implements BeforeAllCallback, AfterAllCallback {

    private final int size;
    private volatile @Nullable HikariDataSource pool;
    /** The test classes running with this pool: more than one when the field is a shared base class's. */
    private int classes;

    /** A pool of at most {@code size} connections. */
    public PostgresPool(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1 but was " + size);
        }
        this.size = size;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (classes++ == 0) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(TestServers.postgres());
            config.setMaximumPoolSize(size);
            pool = new HikariDataSource(config);
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (--classes > 0) {
            return; // another class that shares this field still runs
        }
        HikariDataSource open = pool;
        pool = null;
        if (open != null) {
            open.close();
        }
    }

    /**
     * The pool, while the test class runs.
     *
     * @throws IllegalStateException outside the test class (not registered, or already closed)
     */
    public HikariDataSource pool() {
        HikariDataSource open = pool;
        if (open == null) {
            throw new IllegalStateException("the PostgreSQL pool is open only while its test class runs:"
                    + " register PostgresPool as a static @RegisterExtension field");
        }
        return open;
    }
}
