package dev.inbox.examples.sqs;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.sqs.SqsLambdaBatch;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The same shipments as an SQS-triggered AWS Lambda function: each record of an invocation is
 * claimed in a transaction with its row in the {@code shipments} table, and the records that are
 * not done are answered as {@code batchItemFailures}, so Lambda deletes only what is done.
 *
 * <p>Deploy it with {@code FunctionResponseTypes: [ReportBatchItemFailures]} on the event source
 * mapping: without it Lambda deletes a whole batch whose invocation returned, the records reported
 * here included. {@code JDBC_URL} names the database (a pool such as RDS Proxy in front of it, since
 * every concurrent invocation holds a connection).
 */
public final class ShipmentsFunction implements RequestHandler<SQSEvent, SQSBatchResponse> {

    private final SqsLambdaBatch batch;

    /** What Lambda calls, once per execution environment: the database from {@code JDBC_URL}. */
    public ShipmentsFunction() throws SQLException {
        this(dataSource(System.getenv("JDBC_URL")), "shipping", "shipments");
    }

    /** The function on {@code dataSource}, for {@code consumer}, recording to the table {@code table}. */
    public ShipmentsFunction(DataSource dataSource, String consumer, String table) throws SQLException {
        batch = SqsLambdaBatch.transactional(
                        ShipmentTable.inbox(dataSource, consumer, table),
                        (message, connection) -> ShipmentTable.record(connection, table, message.body()))
                .keys(SqsKeys.attribute("event-id"))
                .build();
    }

    @Override
    public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
        return batch.handle(event, context);
    }

    private static DataSource dataSource(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("set JDBC_URL to the database the shipments are recorded in, for example"
                    + " jdbc:postgresql://host:5432/shipping?user=app");
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url);
        return dataSource;
    }
}
