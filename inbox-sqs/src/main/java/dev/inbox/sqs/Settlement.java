package dev.inbox.sqs;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;

/**
 * The SQS calls that extend or end the messages of one receive, one batch call each: the
 * visibility of those in hand extended, the done ones deleted, the rest put back (visible again
 * after their delay). Entries SQS failed on its side are sent once more; what it still refused is
 * logged with its codes (such a message may be handed out again: another delivery then finds its
 * event held, or done); a receipt handle SQS no longer takes is never used again. Nothing here
 * throws: a message whose call failed comes back after its visibility timeout.
 */
final class Settlement {

    private static final System.Logger LOG = System.getLogger(SqsInboxLoop.class.getName());

    private final SqsClient sqs;
    private final String queueUrl;
    private final List<SqsMessage> messages;
    /** The level of a failed call's log line: quieter while the loop stops and the client closes. */
    private final Supplier<Level> level;
    /**
     * The messages whose receipt handle SQS no longer takes (it handed them out again, or they were
     * deleted): their visibility is not changed again.
     */
    private final Set<Integer> staleHandles = ConcurrentHashMap.newKeySet();

    Settlement(SqsClient sqs, String queueUrl, List<SqsMessage> messages, Supplier<Level> level) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.messages = messages;
        this.level = level;
    }

    /** Extends the visibility of the messages at {@code indexes} to {@code visibility} from now. */
    void extend(List<Integer> indexes, Duration visibility) {
        List<ChangeMessageVisibilityBatchRequestEntry> extend = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            if (!staleHandles.contains(i)) {
                extend.add(visibility(i, visibility));
            }
        }
        changeVisibility(extend, true);
    }

    /** Deletes the messages at {@code done}, and makes each of {@code putBack} visible again after its delay. */
    void settle(List<Integer> done, Map<Integer, Duration> putBack) {
        if (!done.isEmpty()) {
            delete(done);
        }
        List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>(putBack.size());
        putBack.forEach((i, delay) -> entries.add(visibility(i, delay)));
        changeVisibility(entries, true);
    }

    private void delete(List<Integer> done) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>(done.size());
        for (int i : done) {
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .receiptHandle(messages.get(i).message().receiptHandle())
                    .build());
        }
        try {
            var response = sqs.deleteMessageBatch(r -> r.queueUrl(queueUrl).entries(entries));
            if (response.hasFailed() && !response.failed().isEmpty()) {
                LOG.log(
                        Level.WARNING,
                        "SQS did not delete {0} done messages; when handed out again they are answered"
                                + " as duplicates: {1}",
                        response.failed().size(),
                        response.failed());
            }
        } catch (SdkException notDeleted) {
            LOG.log(
                    level.get(),
                    "deleting done messages failed; when handed out again they are answered as duplicates",
                    notDeleted);
        }
    }

    private ChangeMessageVisibilityBatchRequestEntry visibility(int i, Duration delay) {
        return ChangeMessageVisibilityBatchRequestEntry.builder()
                .id(Integer.toString(i))
                .receiptHandle(messages.get(i).message().receiptHandle())
                .visibilityTimeout(Invisibility.seconds(delay))
                .build();
    }

    /** One {@code ChangeMessageVisibilityBatch}; what SQS failed on its side is sent once more when {@code again}. */
    private void changeVisibility(List<ChangeMessageVisibilityBatchRequestEntry> entries, boolean again) {
        if (entries.isEmpty()) {
            return;
        }
        ChangeMessageVisibilityBatchResponse response;
        try {
            response =
                    sqs.changeMessageVisibilityBatch(r -> r.queueUrl(queueUrl).entries(entries));
        } catch (SdkException failed) {
            LOG.log(
                    level.get(),
                    "changing the visibility of " + entries.size() + " messages failed; they come back after"
                            + " the visibility timeout",
                    failed);
            return;
        }
        if (!response.hasFailed() || response.failed().isEmpty()) {
            return;
        }
        List<ChangeMessageVisibilityBatchRequestEntry> retry = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (var failed : response.failed()) {
            ChangeMessageVisibilityBatchRequestEntry entry = entries.stream()
                    .filter(e -> e.id().equals(failed.id()))
                    .findFirst()
                    .orElse(null);
            if (again && entry != null && !Boolean.TRUE.equals(failed.senderFault())) {
                retry.add(entry);
            } else {
                String which = entry == null
                        ? failed.id()
                        : messages.get(Integer.parseInt(entry.id())).toString();
                refused.add(which + ": " + failed.code() + " " + failed.message());
                if (entry != null && "ReceiptHandleIsInvalid".equals(failed.code())) {
                    staleHandles.add(Integer.parseInt(entry.id())); // no later change can succeed
                }
            }
        }
        if (!refused.isEmpty()) {
            LOG.log(
                    level.get(),
                    "SQS did not change the visibility of {0} messages of {1}; each may be handed out again"
                            + " (another delivery then finds its event held, or done): {2}",
                    refused.size(),
                    queueUrl,
                    refused);
        }
        changeVisibility(retry, false);
    }
}
