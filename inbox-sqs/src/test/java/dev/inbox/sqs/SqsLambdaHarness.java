package dev.inbox.sqs;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.LambdaEvents;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * {@link SqsLambdaBatch} under the adapter kit, each consumer playing what an SQS event source
 * mapping with {@code ReportBatchItemFailures} does against the real SQS server: it receives up to
 * ten messages, invokes the function with them and a context whose time counts down from the
 * function's timeout ({@value #FUNCTION_TIMEOUT_MILLIS} ms, longer than the kit's longest work),
 * deletes the records the answer does not report, and leaves the reported ones — and all of them
 * when the invocation throws — to come back after the queue's visibility timeout (the timeout and a
 * second: the mapping here never retries an invocation itself, which is what AWS's advice of six
 * timeouts is for). The queue dead-letters after five receives. An {@code Error} ends the function
 * instance: the next invocation gets a new one. A crash ends the mapping: nothing more is deleted,
 * and the invocation in flight runs no further work.
 */
final class SqsLambdaHarness extends SqsKitHarness {

    static final int FUNCTION_TIMEOUT_MILLIS = 6_000;

    private final String arn;

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL; FIFO queues when {@code fifo}. */
    SqsLambdaHarness(AdapterKit kit, @Nullable HikariDataSource pool, boolean fifo) throws IOException {
        super(new SqsKitQueues(kit, pool, fifo, FUNCTION_TIMEOUT_MILLIS / 1000 + 1));
        arn = queues.arn();
    }

    @Override
    public Running start() {
        return new Mapping();
    }

    /** One event source mapping and the function instance it invokes. */
    private final class Mapping extends Consumer {
        final SqsClient client = queues.consumerClient();
        final Thread thread = new Thread(this::poll, "adapter-kit-lambda-mapping");
        volatile boolean stopping;
        volatile boolean crashed;
        SqsLambdaBatch function = function();

        Mapping() {
            thread.setDaemon(true);
            thread.start();
        }

        /** A new function instance: what it builds once, at its cold start. */
        private SqsLambdaBatch function() {
            AdapterKit kit = queues.kit;
            SqsLambdaBatch.Builder builder = mode() == Mode.LEASE
                    ? SqsLambdaBatch.lease(queues.leaseInbox(), message -> {
                        alive();
                        kit.apply(message.body(), null);
                    })
                    : SqsLambdaBatch.transactional(queues.transactionalInbox(), (message, connection) -> {
                        alive();
                        kit.apply(message.body(), connection);
                    });
            return builder.keys(queues.keys()).busyBackoff(kit.backoff()).build();
        }

        /** Work that starts after a crash does not run: the function's process is gone. */
        private void alive() {
            if (crashed) {
                throw new IllegalStateException("the function's process is gone");
            }
        }

        private void poll() {
            while (!stopping && !crashed) {
                try {
                    List<Message> received = client.receiveMessage(r -> r.queueUrl(queues.queue)
                                    .maxNumberOfMessages(10)
                                    .waitTimeSeconds(1)
                                    .messageAttributeNames("All")
                                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                            .messages();
                    if (!received.isEmpty()) {
                        invoke(received);
                    }
                } catch (RuntimeException unreachable) {
                    pause(); // the proxy cut, or the client closed by a crash
                }
            }
        }

        private void invoke(List<Message> received) {
            SQSEvent event = LambdaEvents.event(received, arn);
            SQSBatchResponse response;
            try {
                response = function.handle(event, LambdaEvents.context(FUNCTION_TIMEOUT_MILLIS));
            } catch (RuntimeException failed) {
                return; // the invocation failed: every record comes back after the visibility timeout
            } catch (Error error) {
                function = function(); // the runtime replaces the instance; the batch comes back
                return;
            }
            Set<String> reported = response.getBatchItemFailures().stream()
                    .map(SQSBatchResponse.BatchItemFailure::getItemIdentifier)
                    .collect(Collectors.toSet());
            for (Message message : received) {
                if (crashed) {
                    return;
                }
                if (!reported.contains(message.messageId())) {
                    try {
                        client.deleteMessage(r -> r.queueUrl(queues.queue).receiptHandle(message.receiptHandle()));
                    } catch (RuntimeException gone) {
                        // it comes back; the inbox answers DUPLICATE
                    }
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopping = true;
            thread.join(60_000);
            client.close();
        }

        @Override
        public void crash() {
            crashed = true;
            client.close();
        }

        private void pause() {
            try {
                Thread.sleep(Math.max(1, queues.kit.backoff().toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
