package dev.inbox.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.SequenceGuard;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.tck.StoreFailureContract;
import dev.inbox.tck.TransactionalStoreContract;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * The kit once more, through MariaDB Connector/J ({@code org.mariadb.jdbc:mariadb-java-client}, the
 * driver many MariaDB users run) instead of MySQL Connector/J: the store reads each claim's answer
 * from the statement's OK packet, which each driver hands out its own way.
 */
class MariadbDriverTest {

    static final String TABLE = "inbox_it_mariadb";
    static final String SEQUENCES = "inbox_it_mariadb_sequence";

    static HikariDataSource pool;

    /** The test server's URL, for MariaDB Connector/J: its scheme, and its spelling of sslMode. */
    static String url() {
        return MysqlTestDatabase.url()
                .replaceFirst("^jdbc:mysql:", "jdbc:mariadb:")
                .replace("sslMode=DISABLED", "sslMode=disable");
    }

    @BeforeAll
    static void startPool() throws SQLException {
        pool = MysqlTestDatabase.pool(url(), 12, true);
        MysqlTestDatabase.execute(
                "DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_purge, " + TABLE + "_without_cj, " + SEQUENCES);
        store(Duration.ofMinutes(10)).createSchemaIfMissing();
    }

    @AfterAll
    static void stopPool() {
        pool.close();
    }

    static MysqlInboxStore store(Duration grace) {
        return MysqlInboxStore.builder(pool)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .grace(grace)
                .build();
    }

    @Test
    void thePoolIsOnMariadbConnectorJ() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.getMetaData().getDriverName()).containsIgnoringCase("MariaDB");
        }
    }

    /** A user who excluded MySQL Connector/J from inbox-mysql: the store needs none of its classes. */
    @Test
    void withoutConnectorJOnTheClassPath_theStoreClaimsThroughMariadbConnectorJ() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("mysql-connector-j")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("com.mysql.cj.jdbc.StatementImpl", false, loader))
                    .isInstanceOf(ClassNotFoundException.class);
            Object outcomes = loader.loadClass(WithoutConnectorJ.class.getName())
                    .getMethod("handleTwice", String.class, String.class)
                    .invoke(null, url(), TABLE + "_without_cj");
            assertThat(outcomes).isEqualTo("PROCESSED DUPLICATE");
        }
    }

    // 15 s, the store kit again through a second driver: CI (-Pcontainers) and -Pextended.
    @Nested
    @Tag("extended")
    class LeaseKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return store(grace);
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            MysqlInboxStore store = MysqlInboxStore.builder(pool)
                    .table(TABLE + "_purge")
                    .grace(grace)
                    .build();
            store.createSchemaIfMissing();
            MysqlTestDatabase.execute("DELETE FROM " + TABLE + "_purge");
            return store;
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((MysqlInboxStore) store).createSchemaIfMissing();
        }

        @Override
        protected int raceRounds() {
            return 300;
        }
    }

    @Nested
    class TransactionalKit extends TransactionalStoreContract {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) {
            return MysqlInboxStore.builder(pool)
                    .table(TABLE)
                    .sequenceTable(SEQUENCES)
                    .grace(grace)
                    .lockWaitTimeout(lockWaitBound())
                    .build();
        }

        @Override
        protected Duration lockWaitBound() {
            return Duration.ofSeconds(1);
        }

        @Override
        protected DataSource dataSource() {
            return pool;
        }
    }

    // 5 s, the store kit again through a second driver: CI (-Pcontainers) and -Pextended.
    @Nested
    @Tag("extended")
    class FailureKit extends StoreFailureContract {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) throws SQLException {
            long millis = timeout.toMillis();
            MariaDbDataSource dataSource = new MariaDbDataSource("jdbc:mariadb://" + host + ":" + port
                    + "/test?user=root&password=&connectTimeout=" + millis + "&socketTimeout=" + millis);
            return MysqlInboxStore.builder(dataSource).table(TABLE).build();
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return store(Duration.ofMinutes(10)).sequenceGuard();
        }
    }
}
