package dev.inbox.jdbc;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A store whose records live in the same database as the business data, so that a claim can join
 * the caller's transaction: the canonical inbox-table pattern.
 *
 * <p>{@link #claimInTransaction(Connection, InboxKey, Duration, String)} writes a COMPLETED record directly,
 * inside the transaction of {@code connection}. If the caller commits, the record and the
 * business write are durable together; if it rolls back, both are gone and a redelivery claims the
 * key again. There is no window in which the work is applied but the record missing, or the
 * reverse.
 *
 * <p>A second transaction claiming the same key concurrently waits for the first and then sees
 * {@code DUPLICATE} (the first committed) or {@code ACQUIRED} (it rolled back). The claim never
 * raises a constraint violation inside the caller's transaction, so the transaction stays usable
 * whatever the answer.
 */
public interface TransactionalInboxStore extends InboxStore {

    /**
     * Claims {@code key} inside the transaction of {@code connection} by writing a COMPLETED record
     * that suppresses duplicates for {@code retention} once committed.
     *
     * @param connection a connection with auto-commit off; the store neither commits nor closes it
     * @param fingerprint the payload fingerprint the record keeps, or null
     * @return {@code ACQUIRED} when the record was written (apply the work in the same
     *     transaction, then commit); {@code DUPLICATE} when a completed record exists; {@code BUSY}
     *     when a lease-mode claim of another owner is live
     * @throws IllegalArgumentException if an argument is null, {@code retention} is not positive,
     *     or {@code connection} is in auto-commit mode
     * @throws dev.inbox.InboxStoreException if the database could not answer
     */
    ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint);

    /**
     * Claims each of {@code keys} inside the transaction of {@code connection}, as {@link
     * #claimInTransaction(Connection, InboxKey, Duration, String)} does without a fingerprint, and
     * answers in the order of {@code keys}; a key repeated in {@code keys} is answered {@code
     * DUPLICATE} after its first occurrence. Every key answered {@code ACQUIRED} has its COMPLETED
     * record written in this transaction: run the work of each before the commit, or roll back. A
     * {@code BUSY} key does not stop the keys after it from being claimed.
     *
     * <p>The default claims one key after the other. A store that can claim many keys in one
     * statement overrides it: one round trip for a batch instead of one per key.
     *
     * @param connection a connection with auto-commit off; the store neither commits nor closes it
     * @throws IllegalArgumentException as {@link #claimInTransaction(Connection, InboxKey, Duration,
     *     String)}, or if {@code keys} is null or holds a null
     * @throws dev.inbox.InboxStoreException if the database could not answer; the transaction must
     *     then be rolled back
     */
    default List<ClaimResult> claimAllInTransaction(Connection connection, List<InboxKey> keys, Duration retention) {
        List<InboxKey> batch = InboxArguments.requireNoNulls(keys, "keys");
        List<ClaimResult> results = new ArrayList<>(batch.size());
        for (InboxKey key : batch) {
            results.add(claimInTransaction(connection, key, retention, null));
        }
        return results;
    }

    /**
     * Keeps {@code result} with the COMPLETED record that {@link #claimInTransaction(Connection,
     * InboxKey, Duration, String)} wrote for {@code key} in this same transaction: once committed,
     * every DUPLICATE of the key carries it ({@link ClaimResult#storedResult()}); rolled back, it is
     * gone with the claim. Call it after an ACQUIRED claim, before the commit, and only then: the
     * store can only check that the record is COMPLETED and keeps no result yet, so a call after a
     * DUPLICATE answer would give a result to a record completed without one.
     *
     * <p>The default throws {@link UnsupportedOperationException}.
     *
     * @param result at most {@link #maxResultBytes()} bytes (may be empty)
     * @throws IllegalArgumentException if an argument is null, {@code connection} is in
     *     auto-commit mode, or {@code result} is longer than {@link #maxResultBytes()} (before any
     *     I/O)
     * @throws dev.inbox.InboxStoreException if the database failed, or holds no COMPLETED record of
     *     {@code key} (the transaction did not claim it)
     */
    default void keepResultInTransaction(Connection connection, InboxKey key, byte[] result) {
        throw new UnsupportedOperationException(getClass().getName() + " does not keep results");
    }

    /**
     * Checks the arguments of {@link #claimInTransaction(Connection, InboxKey, Duration, String)} and returns
     * them as a request with an owner of its own (a transactional record is COMPLETED at once, so
     * no caller ever completes or releases it); for implementations.
     *
     * @throws IllegalArgumentException as {@link #claimInTransaction(Connection, InboxKey, Duration, String)}
     *     documents, except the auto-commit check, which needs the connection
     */
    static ClaimRequest transactionalRequest(
            @Nullable Connection connection,
            @Nullable InboxKey key,
            @Nullable Duration retention,
            @Nullable String fingerprint) {
        InboxArguments.requireNonNull(connection, "connection");
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requirePositive(retention, "retention");
        return ClaimRequest.of(key, OwnerToken.random(), retention).withFingerprint(fingerprint);
    }

    /**
     * {@link #transactionalRequest} for each of {@code keys}, without fingerprints: the requests of
     * {@link #claimAllInTransaction}, for implementations that claim a batch in one statement.
     *
     * @throws IllegalArgumentException as {@link #claimAllInTransaction} documents, except the
     *     auto-commit check
     */
    static List<ClaimRequest> transactionalRequests(
            @Nullable Connection connection, @Nullable List<InboxKey> keys, @Nullable Duration retention) {
        List<InboxKey> batch = InboxArguments.requireNoNulls(keys, "keys");
        InboxArguments.requirePositive(retention, "retention");
        List<ClaimRequest> requests = new ArrayList<>(batch.size());
        for (InboxKey key : batch) {
            requests.add(transactionalRequest(connection, key, retention, null));
        }
        return requests;
    }
}
