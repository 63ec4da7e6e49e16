package dev.inbox.http;

/**
 * Where a request's transaction comes from in transactional mode ({@link
 * IdempotentRequests.Builder#transactional}): {@code inbox-spring}'s {@code SpringRequestTransactions}
 * opens one with the application's {@code PlatformTransactionManager}, bound to the request's thread
 * for the handler to join.
 */
@FunctionalInterface
public interface RequestTransactions {

    /**
     * Opens the transaction of a request about to be claimed, on the calling thread — the thread
     * that then runs the handler.
     *
     * @throws dev.inbox.InboxStoreException if no transaction could be opened (the database down)
     */
    RequestTransaction begin();
}
