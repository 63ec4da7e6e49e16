package dev.inbox.examples.orders;

/**
 * The service as configured: PostgreSQL as the inbox store, each claim in its listener's
 * transaction (pgjdbc, kafka-clients and amqp-client at Boot's versions).
 */
class OrdersOnPostgresTest extends OrdersServiceContract {}
