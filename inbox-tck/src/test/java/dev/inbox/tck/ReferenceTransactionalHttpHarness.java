package dev.inbox.tck;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.tck.http.HttpKit;
import dev.inbox.tck.http.TransactionalHttpHarness;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The simplest {@code Idempotency-Key} integration with a transactional mode, on the JDK's HTTP
 * server and an embedded H2 database ({@link H2TransactionalStore}): the key's claim, the handler's
 * row and the kept response in one transaction. It does only what rule W8 asks (a key and a
 * principal; no fingerprint, no limits). A crash after the handler is the transaction rolled back,
 * as the database does to the transaction of a connection that ends, and a 503. {@link
 * Breakage#EFFECT_OUTSIDE_TRANSACTION} commits the handler's row on a connection of its own, as
 * lease mode does: W8 must fail it.
 */
final class ReferenceTransactionalHttpHarness implements TransactionalHttpHarness {

    /** What a broken integration gets wrong. */
    enum Breakage {
        NONE,
        /** The handler's row committed on its own, before the response is kept (W8). */
        EFFECT_OUTSIDE_TRANSACTION
    }

    private static final Duration RETENTION = Duration.ofMinutes(10);

    private final HttpKit kit;
    private final Breakage breakage;
    private final JdbcDataSource database = new JdbcDataSource();
    private final H2TransactionalStore store;
    private final String consumer = "http-kit-tx-" + UUID.randomUUID();
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);

    ReferenceTransactionalHttpHarness(HttpKit kit, Breakage breakage) throws IOException, SQLException {
        this.kit = kit;
        this.breakage = breakage;
        database.setURL("jdbc:h2:mem:http-kit-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=2000");
        store = new H2TransactionalStore(database, Duration.ofMinutes(1));
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kit_effects (path VARCHAR(300) NOT NULL)");
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(HttpKit.PATH_PREFIX, exchange -> {
            try (exchange) {
                handle(exchange);
            } catch (SQLException e) {
                throw new IOException(e);
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    @Override
    public URI base() {
        return URI.create("http://" + server.getAddress().getHostString() + ":"
                + server.getAddress().getPort());
    }

    @Override
    public int effects(String path) throws SQLException {
        try (Connection c = database.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM kit_effects WHERE path = ?")) {
            s.setString(1, path);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        server.stop(0);
        threads.shutdownNow();
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    private void handle(HttpExchange exchange) throws IOException, SQLException {
        String key = exchange.getRequestHeaders().getFirst(HttpKit.KEY_HEADER);
        String principal = exchange.getRequestHeaders().getFirst(HttpKit.PRINCIPAL_HEADER);
        exchange.getRequestBody().readAllBytes();
        if (key == null || principal == null) {
            ReferenceHttpHarness.send(exchange, ReferenceHttpHarness.problem(400));
            return;
        }
        InboxKey id = InboxKey.of(consumer, principal.length() + ":" + principal + "|" + key);
        String path = exchange.getRequestURI().getPath();
        String query = exchange.getRequestURI().getRawQuery();
        try (Connection c = database.getConnection()) {
            c.setAutoCommit(false);
            ClaimResult claim = store.claimInTransaction(c, id, RETENTION, null);
            if (!claim.isAcquired()) {
                c.rollback();
                byte[] stored = claim.storedResult();
                ReferenceHttpHarness.send(
                        exchange,
                        claim.status() == ClaimStatus.DUPLICATE && stored != null
                                ? ReferenceHttpHarness.replay(stored)
                                : ReferenceHttpHarness.withRetryAfter(ReferenceHttpHarness.problem(409)));
                return;
            }
            HttpKit.Answer answer = kit.respond(path, query);
            if (breakage == Breakage.EFFECT_OUTSIDE_TRANSACTION) {
                try (Connection own = database.getConnection()) {
                    writeEffect(own, path);
                }
            } else {
                writeEffect(c, path);
            }
            if (kit.crashesAfter(path, query)) {
                c.rollback(); // what the database does with the transaction of a connection that ends
                ReferenceHttpHarness.send(exchange, ReferenceHttpHarness.problem(503));
                return;
            }
            store.keepResultInTransaction(c, id, ReferenceHttpHarness.encode(answer, false));
            c.commit();
            ReferenceHttpHarness.send(exchange, answer);
        }
    }

    private static void writeEffect(Connection c, String path) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO kit_effects (path) VALUES (?)")) {
            s.setString(1, path);
            s.executeUpdate();
        }
    }
}
