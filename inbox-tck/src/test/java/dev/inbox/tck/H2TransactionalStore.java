package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.StoredRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A transactional store on an embedded H2 database, for the self-tests of rules T1–T3 only: H2
 * makes a second transaction inserting the same key wait for the first, then fail with a unique
 * violation after its commit or succeed after its rollback, and keeps the transaction usable after
 * that failure — what the kit's transactional rules need. Times are the JVM's (one JVM here).
 * Broken variants override {@link #claimOn}.
 */
class H2TransactionalStore implements TransactionalInboxStore {

    final DataSource dataSource;
    private final long graceMillis;

    H2TransactionalStore(DataSource dataSource, Duration grace) throws SQLException {
        this.dataSource = dataSource;
        this.graceMillis = grace.toMillis();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS inbox (consumer VARCHAR(2048) NOT NULL,"
                    + " dedup_key VARCHAR(2048) NOT NULL, owner_token VARCHAR(100) NOT NULL, state INT NOT NULL,"
                    + " expires_at BIGINT NOT NULL, purge_after BIGINT NOT NULL, fingerprint VARCHAR(200),"
                    + " result VARBINARY(4096), PRIMARY KEY (consumer, dedup_key))");
        }
    }

    @Override
    public ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
        ClaimRequest request = TransactionalInboxStore.transactionalRequest(connection, key, retention, fingerprint);
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalArgumentException("the connection is in auto-commit mode: no transaction to join");
            }
            return claimOn(connection, request, 1);
        } catch (SQLException e) {
            throw new InboxStoreException("transactional claim failed: " + e.getMessage(), e, true);
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        InboxArguments.requireNonNull(request, "request");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            ClaimResult result = claimOn(c, request, 0);
            c.commit();
            return result;
        } catch (SQLException e) {
            throw new InboxStoreException("claim failed: " + e.getMessage(), e, true);
        }
    }

    /** The claim on {@code c}'s transaction: state 1 writes COMPLETED at once (transactional mode). */
    ClaimResult claimOn(Connection c, ClaimRequest request, int state) throws SQLException {
        for (int attempt = 0; attempt < 8; attempt++) {
            long now = System.currentTimeMillis();
            StoredRecord held = read(c, request.key(), now);
            ClaimResult answer = held == null ? null : held.answer(false, request);
            if (answer != null) {
                return answer;
            }
            long expires = now + request.lease().toMillis();
            if (held == null) {
                try (PreparedStatement s = c.prepareStatement("INSERT INTO inbox VALUES (?, ?, ?, ?, ?, ?, ?, NULL)")) {
                    bind(s, request, state, expires);
                    s.executeUpdate();
                    return ClaimResult.acquired();
                } catch (SQLException e) {
                    if (!"23505".equals(e.getSQLState())) {
                        throw e;
                    }
                    ClaimResult instead = onUniqueViolation();
                    if (instead != null) {
                        return instead;
                    }
                    continue; // another transaction committed the key meanwhile: read it
                }
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE inbox SET owner_token = ?, state = ?, expires_at = ?,"
                    + " purge_after = ?, fingerprint = ?, result = NULL WHERE consumer = ? AND dedup_key = ?")) {
                s.setString(1, request.owner().value());
                s.setInt(2, state);
                s.setLong(3, expires);
                s.setLong(4, expires + graceMillis);
                s.setString(5, request.fingerprint());
                s.setString(6, request.key().consumer());
                s.setString(7, request.key().id());
                s.executeUpdate();
            }
            return StoredRecord.answer(held, true, request);
        }
        throw new InboxStoreException("the record kept changing", null, true);
    }

    /** What a unique violation on insert comes to: null reads the key again (correct). */
    @Nullable
    ClaimResult onUniqueViolation() {
        return null;
    }

    private void bind(PreparedStatement s, ClaimRequest request, int state, long expires) throws SQLException {
        s.setString(1, request.key().consumer());
        s.setString(2, request.key().id());
        s.setString(3, request.owner().value());
        s.setInt(4, state);
        s.setLong(5, expires);
        s.setLong(6, expires + graceMillis);
        s.setString(7, request.fingerprint());
    }

    private static @Nullable StoredRecord read(Connection c, InboxKey key, long now) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement("SELECT owner_token, state, expires_at, purge_after, fingerprint, result"
                        + " FROM inbox WHERE consumer = ? AND dedup_key = ? FOR UPDATE")) {
            s.setString(1, key.consumer());
            s.setString(2, key.id());
            try (ResultSet row = s.executeQuery()) {
                return row.next()
                        ? new StoredRecord(
                                row.getString(1),
                                row.getInt(2) == 1,
                                row.getLong(3) <= now,
                                row.getLong(4) <= now,
                                row.getString(5),
                                row.getBytes(6))
                        : null;
            }
        }
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        return completeKeeping(key, owner, retention, null); // an IN_PROGRESS record keeps no result
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        return completeKeeping(key, owner, retention, InboxArguments.requireResult(result, maxResultBytes(), this));
    }

    private boolean completeKeeping(InboxKey key, OwnerToken owner, Duration retention, byte @Nullable [] result) {
        long expires = System.currentTimeMillis() + retention.toMillis();
        return update(
                        "UPDATE inbox SET result = CASE WHEN state = 0 THEN ? ELSE result END,"
                                + " expires_at = CASE WHEN state = 0 THEN ? ELSE expires_at END,"
                                + " purge_after = CASE WHEN state = 0 THEN ? ELSE purge_after END, state = 1"
                                + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ? AND purge_after > ?",
                        result,
                        expires,
                        expires + graceMillis,
                        key.consumer(),
                        key.id(),
                        owner.value(),
                        System.currentTimeMillis())
                == 1;
    }

    @Override
    public int maxResultBytes() {
        return 4096;
    }

    @Override
    public void keepResultInTransaction(Connection connection, InboxKey key, byte[] result) {
        InboxArguments.requireResult(result, maxResultBytes(), this);
        try (PreparedStatement s = connection.prepareStatement("UPDATE inbox SET result = ?"
                + " WHERE consumer = ? AND dedup_key = ? AND state = 1 AND result IS NULL")) {
            s.setBytes(1, result);
            s.setString(2, key.consumer());
            s.setString(3, key.id());
            if (s.executeUpdate() != 1) {
                throw new InboxStoreException("no COMPLETED record of " + key + " without a result", null, false);
            }
        } catch (SQLException e) {
            throw new InboxStoreException("keeping a result failed: " + e.getMessage(), e, true);
        }
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        long expires = System.currentTimeMillis() + lease.toMillis();
        return update(
                        "UPDATE inbox SET expires_at = ?, purge_after = ?"
                                + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ? AND state = 0"
                                + " AND purge_after > ?",
                        expires,
                        expires + graceMillis,
                        key.consumer(),
                        key.id(),
                        owner.value(),
                        System.currentTimeMillis())
                == 1;
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        return update(
                        "DELETE FROM inbox WHERE consumer = ? AND dedup_key = ? AND owner_token = ? AND state = 0"
                                + " AND purge_after > ?",
                        key.consumer(),
                        key.id(),
                        owner.value(),
                        System.currentTimeMillis())
                == 1;
    }

    @Override
    public long purge() {
        return update("DELETE FROM inbox WHERE purge_after <= ?", System.currentTimeMillis());
    }

    private int update(String sql, Object... values) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            for (int i = 0; i < values.length; i++) {
                s.setObject(i + 1, values[i]);
            }
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new InboxStoreException(sql + " failed: " + e.getMessage(), e, true);
        }
    }

    @Override
    public void close() {}
}
