package dev.inbox.spring.web;

import org.junit.jupiter.api.Nested;

/**
 * The HTTP kit (W1–W7) and each framework's own cases through Spring MVC ({@link
 * SpringMvcHttpKitTest}: Tomcat, {@code DispatcherServlet}, {@code @IdempotentRoute}) and Spring
 * WebFlux ({@link WebFluxHttpKitTest}: Reactor Netty) on PostgreSQL, MySQL/MariaDB, Redis and
 * DynamoDB (dynalite); the two classes run them on the embedded store themselves. And Spring MVC in
 * transactional mode on MySQL/MariaDB, W1–W8 ({@link SpringMvcTransactionalHttpKitTest} and {@link
 * SpringMvcTransactionalCrashKitTest} run them on PostgreSQL).
 */
class HttpKitOnEveryStoreTest {

    @Nested
    class MvcOnPostgres extends SpringMvcHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.postgres();
        }
    }

    @Nested
    class MvcOnMysql extends SpringMvcHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.mysql();
        }
    }

    @Nested
    class MvcOnRedis extends SpringMvcHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.redis();
        }
    }

    @Nested
    class MvcOnDynamoDb extends SpringMvcHttpKitTest {
        @Override
        protected KitStore openStore() throws Exception {
            return KitStore.dynamodb();
        }
    }

    @Nested
    class MvcTransactionalOnMysql extends SpringMvcTransactionalHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.mysql();
        }
    }

    @Nested
    class MvcTransactionalCrashOnMysql extends SpringMvcTransactionalCrashKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.mysql();
        }
    }

    @Nested
    class WebFluxOnPostgres extends WebFluxHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.postgres();
        }
    }

    @Nested
    class WebFluxOnMysql extends WebFluxHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.mysql();
        }
    }

    @Nested
    class WebFluxOnRedis extends WebFluxHttpKitTest {
        @Override
        protected KitStore openStore() {
            return KitStore.redis();
        }
    }

    @Nested
    class WebFluxOnDynamoDb extends WebFluxHttpKitTest {
        @Override
        protected KitStore openStore() throws Exception {
            return KitStore.dynamodb();
        }
    }
}
