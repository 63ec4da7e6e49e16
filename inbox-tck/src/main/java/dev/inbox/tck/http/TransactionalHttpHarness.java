package dev.inbox.tck.http;

/**
 * What an {@code Idempotency-Key} integration's test supplies to {@link TransactionalHttpContract}:
 * a server wired as {@link HttpHarness} says, with the integration in its transactional mode (the
 * key's claim, the handler's writes and the kept response in one database transaction), and a
 * handler that writes:
 *
 * <ul>
 *   <li>every run of the kit's handler writes one row for its path in the request's transaction —
 *       the effect that {@link #effects(String)} counts once committed;
 *   <li>after a run for which {@link HttpKit#crashesAfter(String, String)} is true, the server ends
 *       that transaction's database connection (from another connection: PostgreSQL's {@code
 *       pg_terminate_backend}, MySQL's {@code KILL}) before the integration keeps the response, and
 *       lets the integration go on: what the database sees when the process dies there.
 * </ul>
 */
public interface TransactionalHttpHarness extends HttpHarness {

    /** The rows the handler wrote for {@code path} that are committed, read on a connection of its own. */
    int effects(String path) throws Exception;
}
