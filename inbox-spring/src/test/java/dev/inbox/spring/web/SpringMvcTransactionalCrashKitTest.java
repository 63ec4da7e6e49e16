package dev.inbox.spring.web;

import dev.inbox.tck.http.HttpKit;
import dev.inbox.tck.http.TransactionalHttpContract;
import dev.inbox.tck.http.TransactionalHttpHarness;

/**
 * The HTTP kit's transactional rule (W8) through Spring MVC in transactional mode on PostgreSQL (on
 * MySQL/MariaDB: {@link HttpKitOnEveryStoreTest}): the request's database connection ended after the
 * handler wrote its row, before the response is kept ({@link TransactionalMvcHarness}).
 */
class SpringMvcTransactionalCrashKitTest extends TransactionalHttpContract {

    /** The SQL store the kit runs on, with its {@code DataSource}. */
    protected KitStore openStore() throws Exception {
        return KitStore.postgres();
    }

    @Override
    protected TransactionalHttpHarness createHarness(HttpKit kit) throws Exception {
        return new TransactionalMvcHarness(kit, openStore());
    }
}
