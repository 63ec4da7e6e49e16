package dev.inbox.examples.sqs;

import dev.inbox.Deliveries;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.sqs.SqsInboxLoop;
import dev.inbox.sqs.SqsKeys;
import java.net.URI;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * A plain-Java SQS consumer: receives shipments from a queue and records each in the {@code
 * shipments} table in PostgreSQL — once per event, however often SQS hands a message out again or
 * the producer re-sends it. The claim and the row commit in one transaction, then the message is
 * deleted. Each message carries its event id in the {@code event-id} message attribute; see this
 * example's README for how to send one.
 *
 * <p>Run: {@code ./mvnw -q -pl examples/sqs-postgres -am compile exec:java}, with an SQS endpoint on
 * {@code SQS_ENDPOINT} (default {@code http://127.0.0.1:9324}, a local ElasticMQ; {@code aws} for
 * Amazon SQS with the SDK's default credentials and region), the queue {@code SQS_QUEUE_URL} (default:
 * the queue {@code shipments}, created when missing) and PostgreSQL on {@code JDBC_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}).
 */
public final class Shipments implements AutoCloseable {

    private final SqsInboxLoop loop;

    /** A consumer of {@code queueUrl} for {@code consumer}, recording to the table {@code table}. */
    public Shipments(SqsClient sqs, String queueUrl, DataSource dataSource, String consumer, String table)
            throws SQLException {
        TransactionalInbox inbox = ShipmentTable.inbox(dataSource, consumer, table);
        loop = SqsInboxLoop.transactional(
                        sqs,
                        queueUrl,
                        inbox,
                        (message, connection) -> ShipmentTable.record(connection, table, message.body()))
                .keys(SqsKeys.attribute("event-id")) // the id your producer sends with every copy
                .build();
    }

    /**
     * Receives until {@link #close()}. A message without an {@code event-id} attribute is never run:
     * it goes to the queue's dead-letter queue, or stays on the queue when it has none.
     */
    public void run() {
        loop.run();
    }

    /** What the loop did: applied, skipped as duplicates, and so on. */
    public Deliveries counts() {
        return loop.counts();
    }

    /** Stops {@link #run()} after the message in hand, which is finished and deleted. */
    @Override
    public void close() {
        loop.stop();
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource(); // or your pool
        dataSource.setUrl(env("JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        try (SqsClient sqs = client(env("SQS_ENDPOINT", "http://127.0.0.1:9324"))) {
            String queueUrl = env("SQS_QUEUE_URL", null);
            if (queueUrl == null) {
                queueUrl = sqs.createQueue(r -> r.queueName("shipments")).queueUrl(); // the existing one, if any
            }
            Shipments shipments = new Shipments(sqs, queueUrl, dataSource, "shipping", "shipments");
            Thread main = Thread.currentThread();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                shipments.close();
                try {
                    main.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            System.out.println("receiving shipments from " + queueUrl
                    + "; send each with an event-id message attribute (see the README), Ctrl-C stops");
            shipments.run();
            System.out.println("stopped: " + shipments.counts());
        }
    }

    /** A client of {@code endpoint}: Amazon SQS for {@code aws}, else a local server (any credentials). */
    private static SqsClient client(String endpoint) {
        SqsClientBuilder builder = SqsClient.builder();
        if (endpoint.equals("aws")) {
            return builder.credentialsProvider(
                            DefaultCredentialsProvider.builder().build())
                    .build();
        }
        return builder.endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .build();
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }
}
