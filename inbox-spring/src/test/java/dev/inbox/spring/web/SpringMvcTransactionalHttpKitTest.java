package dev.inbox.spring.web;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import java.net.URI;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The HTTP kit through Spring MVC in transactional mode on PostgreSQL (on MySQL/MariaDB: {@link
 * HttpKitOnEveryStoreTest}): each request's claim in the
 * transaction {@link SpringRequestTransactions} opens, the response kept in it before the commit. A
 * request with a key in flight waits for that transaction in the database, so the kit's concurrent
 * requests all get the one run's response.
 */
class SpringMvcTransactionalHttpKitTest extends HttpContract {

    /** The SQL store the kit runs on, with its {@code DataSource}. */
    protected KitStore openStore() throws Exception {
        return KitStore.postgres();
    }

    @Override
    protected HttpHarness createHarness(HttpKit kit) throws Exception {
        KitStore store = openStore();
        DataSource dataSource = Objects.requireNonNull(store.dataSource(), "transactional mode needs a SQL store");
        Inbox inbox = Inbox.builder(store.store())
                .consumer("mvc-tx-" + UUID.randomUUID())
                .build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.header(HttpKit.PRINCIPAL_HEADER))
                .maxBodyBytes(HttpKit.MAX_BODY_BYTES)
                .transactional(
                        new SpringRequestTransactions(new DataSourceTransactionManager(dataSource), dataSource, inbox))
                .build();
        MvcServer server = new MvcServer(
                SpringMvcHttpKitTest.Web.class,
                application ->
                        application.addBeanFactoryPostProcessor(beans -> beans.registerSingleton("httpKit", kit)),
                requests);
        return new HttpHarness() {
            @Override
            public URI base() {
                return server.base;
            }

            @Override
            public void close() throws Exception {
                try (KitStore closing = store) {
                    server.close();
                }
            }
        };
    }
}
