package dev.inbox.sqs;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The inbox for an SQS-triggered Lambda function with partial batch responses ({@code
 * ReportBatchItemFailures} on the event source mapping): each record of the event goes through the
 * inbox, and the records that are not done come back as {@code batchItemFailures}, so that Lambda
 * deletes only what is done.
 *
 * <pre>{@code
 * public class Orders implements RequestHandler<SQSEvent, SQSBatchResponse> {
 *     private final SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, message -> apply(message.body()))
 *             .keys(SqsKeys.attribute("event-id"))
 *             .build();
 *
 *     public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
 *         return batch.handle(event, context);
 *     }
 * }
 * }</pre>
 *
 * <p><b>Set {@code FunctionResponseTypes: [ReportBatchItemFailures]} on the event source mapping.</b>
 * Without it Lambda ignores the response: an invocation that returns deletes its whole batch, the
 * records reported here included, and those events are lost. When no record of an invocation is
 * done, {@link #handle} throws {@link SqsBatchFailedException} instead of returning (as AWS Lambda
 * Powertools does), so that case is safe either way; a batch in which only some records failed is
 * not.
 *
 * <p>A record is reported as a failure when it is busy (another delivery holds its event), its work
 * threw, the store could not answer, or it has no usable key (so the queue's redrive policy moves it
 * to the dead-letter queue after {@code maxReceiveCount}); a processed record, a duplicate, and one
 * whose work ran but whose completion could not be recorded are done. On a FIFO queue the first
 * record that is not done ends the batch: it and every record after it are reported, as AWS asks,
 * so that no group runs ahead of a failed message — a record without a key included: nothing after
 * it is claimed or run. An {@code Error} from the work propagates after
 * what was done is completed: the invocation fails and Lambda returns the whole batch, whose done
 * records are then answered as duplicates.
 *
 * <p>In lease mode the claims of an invocation hold for the inbox's lease or the invocation's
 * remaining time ({@link Context#getRemainingTimeInMillis()}), whichever is shorter ({@link
 * Inbox#withLease}): an invocation that times out does not keep its events busy after its end.
 */
public final class SqsLambdaBatch {

    private static final System.Logger LOG = System.getLogger(SqsLambdaBatch.class.getName());

    private final Function<Duration, Processor> processors;
    private final SqsKeys keys;

    private SqsLambdaBatch(Builder builder) {
        this.processors = builder.processors;
        this.keys = builder.keys;
    }

    /**
     * Lease mode: the records of an invocation are claimed in one {@link Inbox#claimAll}, for the
     * shorter of the inbox's lease and the invocation's remaining time.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder lease(Inbox inbox, SqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder(remaining -> new Processor.LeaseProcessor(
                remaining.compareTo(inbox.lease()) < 0 ? inbox.withLease(remaining) : inbox, handler));
    }

    /**
     * Transactional mode: each record is claimed in a database transaction with {@code handler}'s
     * writes, and is done once that transaction commits.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder transactional(TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        Processor processor = new Processor.TransactionalProcessor(inbox, handler);
        return new Builder(remaining -> processor);
    }

    /**
     * Handles the records of one invocation.
     *
     * @return the records that are not done, for Lambda to return to the queue (with {@code
     *     ReportBatchItemFailures} on the event source mapping; see the class documentation)
     * @throws IllegalArgumentException if {@code event} or {@code context} is null
     * @throws SqsBatchFailedException if no record is done (none is lost: the invocation fails and
     *     Lambda returns them all)
     * @throws Error what the work threw, after what was done was completed
     */
    public SQSBatchResponse handle(SQSEvent event, Context context) {
        requireNonNull(event, "event");
        requireNonNull(context, "context");
        List<SQSEvent.SQSMessage> records = event.getRecords() == null ? List.of() : event.getRecords();
        List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
        long remainingMillis = context.getRemainingTimeInMillis();
        if (remainingMillis <= 0) {
            LOG.log(Level.WARNING, "no time left for the {0} records of this invocation", records.size());
            throw new SqsBatchFailedException(
                    records.stream().map(SQSEvent.SQSMessage::getMessageId).toList());
        }
        Processor processor = processors.apply(Duration.ofMillis(remainingMillis));
        boolean fifo = records.stream()
                .anyMatch(r ->
                        r.getEventSourceArn() != null && r.getEventSourceArn().endsWith(".fifo"));
        List<SqsMessage> messages = new ArrayList<>();
        List<Integer> keyed = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        boolean[] failed = new boolean[records.size()];
        boolean keylessBefore = false;
        for (int i = 0; i < records.size(); i++) {
            SqsMessage message = SqsMessage.of(sdkMessage(records.get(i)));
            messages.add(message);
            String id = processor.idOf(keys, message);
            if (id == null) {
                failed[i] = true;
                keylessBefore = true;
            } else if (!(fifo && keylessBefore)) { // on FIFO nothing runs ahead of a record not done
                keyed.add(i);
                ids.add(id);
            }
        }
        if (!keyed.isEmpty()) {
            run(processor, messages, keyed, ids, failed, fifo);
        }
        boolean stopped = false;
        for (int i = 0; i < records.size(); i++) {
            stopped |= fifo && failed[i];
            if (failed[i] || stopped) {
                failures.add(
                        new SQSBatchResponse.BatchItemFailure(records.get(i).getMessageId()));
            }
        }
        if (!records.isEmpty() && failures.size() == records.size()) {
            throw new SqsBatchFailedException(failures.stream()
                    .map(SQSBatchResponse.BatchItemFailure::getItemIdentifier)
                    .toList());
        }
        return new SQSBatchResponse(failures);
    }

    private static void run(
            Processor processor,
            List<SqsMessage> messages,
            List<Integer> keyed,
            List<String> ids,
            boolean[] failed,
            boolean fifo) {
        Processor.Batch batch;
        try {
            batch = processor.claim(ids, Processor.at(messages, keyed));
        } catch (InboxStoreException storeDown) {
            LOG.log(Level.WARNING, "the store could not claim the batch; every record is reported", storeDown);
            keyed.forEach(i -> failed[i] = true);
            return;
        }
        int next = 0;
        boolean stopped = false;
        try {
            for (; next < keyed.size(); next++) {
                int i = keyed.get(next);
                if (stopped) {
                    batch.giveBack(next);
                    continue;
                }
                failed[i] = !done(batch, next, messages.get(i));
                stopped = fifo && failed[i];
            }
        } catch (RuntimeException | Error unexpected) {
            for (int k = next; k < keyed.size(); k++) {
                batch.giveBack(k);
            }
            throw unexpected;
        } finally {
            try {
                batch.complete();
            } catch (InboxStoreException notRecorded) {
                LOG.log(
                        Level.WARNING,
                        "the work of the batch ran but its completion could not be recorded; reported done",
                        notRecorded);
            }
        }
    }

    private static boolean done(Processor.Batch batch, int index, SqsMessage message) {
        try {
            return batch.run(index, message) != HandleOutcome.BUSY;
        } catch (InboxStoreException storeDown) {
            LOG.log(Level.WARNING, "the store could not answer for " + message + "; reported", storeDown);
        } catch (Exception workFailed) {
            LOG.log(Level.WARNING, "the work of " + message + " failed; reported", workFailed);
        }
        return false;
    }

    /** The record as the SDK would have received it, so that keys and handlers see one type. */
    static Message sdkMessage(SQSEvent.SQSMessage record) {
        Map<MessageSystemAttributeName, String> system = new HashMap<>();
        if (record.getAttributes() != null) {
            record.getAttributes().forEach((name, value) -> {
                MessageSystemAttributeName known = MessageSystemAttributeName.fromValue(name);
                if (known != MessageSystemAttributeName.UNKNOWN_TO_SDK_VERSION) {
                    system.put(known, value);
                }
            });
        }
        Map<String, MessageAttributeValue> attributes = new HashMap<>();
        if (record.getMessageAttributes() != null) {
            record.getMessageAttributes().forEach((name, value) -> {
                MessageAttributeValue.Builder converted =
                        MessageAttributeValue.builder().dataType(value.getDataType());
                if (value.getStringValue() != null) {
                    converted.stringValue(value.getStringValue());
                }
                if (value.getBinaryValue() != null) {
                    converted.binaryValue(SdkBytes.fromByteBuffer(value.getBinaryValue()));
                }
                attributes.put(name, converted.build());
            });
        }
        return Message.builder()
                .messageId(record.getMessageId())
                .receiptHandle(record.getReceiptHandle())
                .body(record.getBody())
                .attributes(system)
                .messageAttributes(attributes)
                .build();
    }

    /** Configures an {@link SqsLambdaBatch}. */
    public static final class Builder {
        private final Function<Duration, Processor> processors;
        private SqsKeys keys = SqsKeys.standard();

        private Builder(Function<Duration, Processor> processors) {
            this.processors = processors;
        }

        /**
         * Where the dedup key comes from; default {@link SqsKeys#standard()}.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder keys(SqsKeys keys) {
            this.keys = requireNonNull(keys, "keys");
            return this;
        }

        /** Builds the handler; keep one per function instance, across invocations. */
        public SqsLambdaBatch build() {
            return new SqsLambdaBatch(this);
        }
    }
}
