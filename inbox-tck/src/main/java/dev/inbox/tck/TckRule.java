package dev.inbox.tck;

/**
 * The rules of the kit. Every rule is verified by at least one test whose display name starts with
 * its id; the kit's own build checks that none is left untested and that its README lists each.
 */
public enum TckRule {
    C1("A fresh key is ACQUIRED."),
    C2("A live COMPLETED record makes a claim DUPLICATE."),
    C3("Another owner's live lease makes a claim BUSY."),
    C4("An expired lease is ACQUIRED by a new owner (a takeover); the old owner can no longer complete or release."),
    C5("The same owner claiming again is ACQUIRED, never DUPLICATE, so a retry after a lost reply drops nothing."),
    C6("Keys are scoped by consumer: one id under two consumers is two keys."),
    C7("Keys are compared exactly: case, NFC vs NFD, 512-byte keys sharing a 511-byte prefix, quotes, %, _,"
            + " backslash, emoji are all distinct and none is truncated."),
    C8("Threads racing to claim one fresh key: exactly one ACQUIRED per round, also through overlapping"
            + " claimAll batches."),
    C9("Threads racing on an expired lease, against the old owner's complete or release or a purge, and all at"
            + " once with nothing else going on: exactly one holder, and none after a completion the old owner was"
            + " told succeeded."),
    D1("Every combination of held record (none, IN_PROGRESS, COMPLETED), expiry (live, past expiry within"
            + " grace, past grace), claimant (the owner, another) and fingerprints (none, equal, different) gets"
            + " the answer of the decision table."),
    F1("A DUPLICATE reports whether the stored payload fingerprint matches the new one."),
    P1("complete by the current owner succeeds and later claims are DUPLICATE."),
    P2("complete by another owner, or of an absent key, fails and changes nothing."),
    P3("release by the current owner succeeds and lets the next claim in."),
    P4("release by another owner, or of a COMPLETED record, fails and changes nothing."),
    H1("renew by the current owner extends the lease: a claim by another owner after the original lease but before"
            + " the renewed one is BUSY; an owner whose lease ended but was not taken over may renew it."),
    H2("renew by another owner, after a takeover, after a release, or of a COMPLETED or absent record fails and"
            + " changes nothing."),
    S1("A DUPLICATE carries exactly the bytes the completing owner stored with complete(…, result) — binary,"
            + " empty, at the limit, in claimAll, late in grace — and no result when none was stored, when a stranger"
            + " tried, or when a later owner reused the key after the old record's grace."),
    S2("A result over maxResultBytes() is rejected with IllegalArgumentException before any I/O, and the record is"
            + " not completed."),
    R1("Past retention but before removal, a claim is DUPLICATE flagged late; every DUPLICATE reports how long past"
            + " its record's retention it came (negative within it)."),
    R2("purge removes exactly what is past expiry + grace and returns the count; such records count as absent,"
            + " and a record inside its grace is kept."),
    R3("Grace is the record's: an instance with a shorter grace neither purges nor takes a record inside the grace"
            + " of the instance that wrote it."),
    B1("claimAll equals claiming each key in order: repeated keys, an empty batch, batches larger than one request."),
    B2("completeAll answers as completing each item in order would: strangers, absent, released and repeated keys,"
            + " an empty batch, batches larger than one request; and changes nothing else."),
    T1("A transactional claim that is rolled back leaves no record."),
    T2("Two concurrent transactions on one key: exactly one wins; the other sees DUPLICATE after commit or"
            + " ACQUIRED after rollback."),
    T3("The transactional claim and the business write commit or roll back together; the transaction stays usable."),
    T4("A batch of transactional claims answers each key as one transactional claim would (new, repeated, committed,"
            + " held by a live lease), inside the caller's transaction: rolled back, it leaves none of its claims."),
    O1("The sequence guard answers APPLIED, STALE or GAP, and a race on one sequence number has exactly one APPLIED."),
    E1("Bad input fails with IllegalArgumentException before any I/O."),
    E2("An unreachable or silent store fails with InboxStoreException, never a made-up answer."),
    E3("A server unreachable at start or lost mid-run fails operations with InboxStoreException; once it is back"
            + " the same store works and nothing acknowledged is lost."),
    E4("A reply lost after the server applied a claim: the same owner's retry is ACQUIRED, another owner's BUSY."),
    E5("A server stalled past the client timeout: the timeout surfaces as InboxStoreException; after it resumes"
            + " exactly one owner holds the key."),
    E6("A transactional claim waiting on a transaction that hangs gets a retryable InboxStoreException within the"
            + " store's lock wait bound, never an answer; after the holder dies the next delivery is ACQUIRED and the"
            + " event is applied once."),
    M1("inspect shows a record as the store holds it: state, owner, lease or retention end, purge time, fingerprint,"
            + " result size; nothing for an absent key, the same id under another consumer, or an id that differs in"
            + " case or length."),
    M2("inspect judges a record's state by the store's clock: LEASE_ENDED or RETENTION_ENDED once its lease or"
            + " retention ended, EXPIRED (or no record) past expiry + grace."),
    M3("stuck lists exactly the consumer's IN_PROGRESS records whose lease ended at least the asked time ago, in"
            + " UTF-8 byte order of their ids, page by page after a cursor, each once; never live leases, completed"
            + " records or another consumer's."),
    M4("count tallies the consumer's records by state, and only the consumer's."),
    M5("releaseLease deletes any owner's IN_PROGRESS record, live or ended: the next claim is ACQUIRED and the old"
            + " owner's complete, renew and release answer false; a COMPLETED or absent key is left alone."),
    M6("forget deletes one key's record whatever its state: the next delivery is ACQUIRED, a holder is fenced, the"
            + " same id under another consumer stays, and forgetting again answers false."),
    M7("Bad admin input (null or invalid keys and consumers, a page limit outside 1 to 1000, a negative overdue"
            + " time or one over 100 years, an empty cursor) fails with IllegalArgumentException before any I/O."),
    L1("Operations after close fail with IllegalStateException, admin operations too; schema creation is"
            + " idempotent.");

    private final String sentence;

    TckRule(String sentence) {
        this.sentence = sentence;
    }

    /** What the rule requires, in one sentence. */
    public String sentence() {
        return sentence;
    }
}
