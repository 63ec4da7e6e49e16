package dev.inbox.spring.web;

import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;

/**
 * The HTTP kit (W1–W7) through Spring MVC in transactional mode on PostgreSQL (on MySQL/MariaDB:
 * {@link HttpKitOnEveryStoreTest}): each request's claim in the transaction {@link
 * SpringRequestTransactions} opens, the handler's row and the kept response in it before the commit
 * ({@link TransactionalMvcHarness}). A request with a key in flight waits for that transaction in the
 * database, so the kit's concurrent requests all get the one run's response. W8 is {@link
 * SpringMvcTransactionalCrashKitTest}.
 */
class SpringMvcTransactionalHttpKitTest extends HttpContract {

    /** The SQL store the kit runs on, with its {@code DataSource}. */
    protected KitStore openStore() throws Exception {
        return KitStore.postgres();
    }

    @Override
    protected HttpHarness createHarness(HttpKit kit) throws Exception {
        return new TransactionalMvcHarness(kit, openStore());
    }
}
