package dev.inbox.http;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimResult;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One request's database transaction in transactional mode ({@link
 * IdempotentRequests.Builder#transactional}): the key's claim, the handler's writes and the kept
 * response are written in it and commit together, or not at all. The transaction is the
 * handler's too — it must join it (in Spring: the transaction bound to the request's thread, which
 * {@code @Transactional} and {@code JdbcTemplate} join) — so a process that dies after the handler's
 * write and before the response is kept leaves neither behind, and a retry runs the handler once.
 */
public interface RequestTransaction {

    /**
     * Claims {@code key} inside this transaction, as {@code
     * TransactionalInboxStore.claimInTransaction} does: {@code ACQUIRED} (the record is written, to
     * commit with the handler's writes), {@code DUPLICATE} (the key's request committed; with its
     * kept response and the fingerprint check) or {@code BUSY} (a lease-mode claim holds it). A
     * concurrent transaction claiming the same key waits for this one in the database.
     *
     * @throws dev.inbox.InboxStoreException if the database could not answer
     */
    ClaimResult claim(InboxKey key, Duration retention, @Nullable String fingerprint);

    /**
     * Keeps {@code response} with the record {@link #claim} wrote in this transaction.
     *
     * @throws dev.inbox.InboxStoreException if the database could not write it
     */
    void keep(InboxKey key, byte[] response);

    /**
     * Commits the transaction — the claim, the handler's writes and the kept response.
     *
     * @return false when the transaction had been marked rollback-only (by the handler's own
     *     transactional code) and was rolled back instead: nothing of the request remains
     * @throws dev.inbox.InboxStoreException if the commit failed: its outcome is unknown
     */
    boolean commit();

    /** Rolls the transaction back: the claim and the handler's writes are gone. Never throws. */
    void rollback();
}
