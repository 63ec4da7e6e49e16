/** An orders service on Spring Boot's parent POM: Kafka and RabbitMQ listeners deduplicated by the starter. */
package dev.inbox.examples.orders;
