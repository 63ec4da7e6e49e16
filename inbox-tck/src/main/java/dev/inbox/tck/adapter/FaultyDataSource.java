package dev.inbox.tck.adapter;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The database a transactional adapter under test talks to: the real one, except that the commit
 * of a transaction the kit doomed fails — the transaction is rolled back and {@code commit()}
 * throws as it does when the database goes away at the commit (SQL state {@code 08006}) — and the
 * commit of a transaction the kit marked first runs what the kit planned there (the consumer dies).
 */
final class FaultyDataSource {

    /** Transactions (by their connection) whose next commit fails, or runs something first; one per kit. */
    static final class Doomed {
        private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
        private final Map<Connection, Runnable> beforeCommit = new ConcurrentHashMap<>();
        final AtomicInteger failedCommits = new AtomicInteger();

        /**
         * Dooms the transaction on {@code connection}, when it is one of a {@link #wrap}ped data
         * source's; false otherwise (the harness gave the adapter connections the kit cannot fail).
         */
        boolean doom(Connection connection) {
            if (!ours(connection)) {
                return false;
            }
            connections.add(connection);
            return true;
        }

        /**
         * Runs {@code atCommit} when the transaction on {@code connection} commits, before the real
         * commit (which then goes on); false when {@code connection} is not a {@link #wrap}ped data
         * source's.
         */
        boolean beforeCommit(Connection connection, Runnable atCommit) {
            if (!ours(connection)) {
                return false;
            }
            beforeCommit.put(connection, atCommit);
            return true;
        }

        private static boolean ours(Connection connection) {
            return Proxy.isProxyClass(connection.getClass())
                    && Proxy.getInvocationHandler(connection) instanceof Commits;
        }
    }

    private FaultyDataSource() {}

    /** {@code dataSource} whose connections fail the commits {@code doomed} names. */
    static DataSource wrap(DataSource dataSource, Doomed doomed) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(dataSource, method, args);
                    if (result instanceof Connection connection
                            && method.getName().equals("getConnection")) {
                        return Proxy.newProxyInstance(
                                Connection.class.getClassLoader(),
                                new Class<?>[] {Connection.class},
                                new Commits(connection, doomed));
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** A connection whose commit fails once its transaction was doomed. */
    private record Commits(Connection connection, Doomed doomed) implements java.lang.reflect.InvocationHandler {
        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) throws Throwable {
            if (method.getName().equals("commit")) {
                Runnable atCommit = doomed.beforeCommit.remove((Connection) proxy);
                if (atCommit != null) {
                    atCommit.run();
                }
            }
            if (method.getName().equals("commit") && doomed.connections.remove((Connection) proxy)) {
                connection.rollback();
                doomed.failedCommits.incrementAndGet();
                throw new SQLException("adapter kit: the database went away at the commit", "08006");
            }
            if (method.getName().equals("equals")) {
                return proxy == args[0];
            }
            if (method.getName().equals("hashCode")) {
                return System.identityHashCode(proxy);
            }
            return FaultyDataSource.invoke(connection, method, args);
        }
    }
}
