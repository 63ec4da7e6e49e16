package dev.inbox.sqs;

import java.util.List;

/**
 * Thrown by {@link SqsLambdaBatch#handle} when no record of the invocation is done, so that the
 * invocation fails and Lambda returns every record to the queue.
 *
 * <p>A response that lists every record as a failure would do the same — but only on an event source
 * mapping with {@code ReportBatchItemFailures}; without it, Lambda reads any response as success and
 * deletes the whole batch. A failed invocation returns the batch either way, so no event is lost to
 * a missing setting. Leave it uncaught in your handler.
 */
public final class SqsBatchFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> messageIds;

    SqsBatchFailedException(List<String> messageIds) {
        super("none of the " + messageIds.size() + " records of this invocation is done (busy, failed, the store"
                + " could not answer, no usable key, or no time left; each is logged): the invocation fails so"
                + " that Lambda returns them all, whether or not the event source mapping reports batch item"
                + " failures");
        this.messageIds = List.copyOf(messageIds);
    }

    /** The SQS message ids of the records, none of them done. */
    public List<String> messageIds() {
        return messageIds;
    }
}
