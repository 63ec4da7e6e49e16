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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
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
 * <p>A record whose event another delivery holds (busy), or that the store cannot claim, is waited
 * for in place: claimed again every {@linkplain Builder#busyBackoff busy back-off} for as long as
 * the invocation has time, keeping a fifth of it (at least a quarter of a second) to record what is
 * done and answer. Reported, each record would come back only after the queue's visibility timeout
 * and count towards its {@code maxReceiveCount}: a long-held event, or a store outage, would be
 * dead-lettered unapplied. Before its first wait an invocation records what it has done and lets go
 * of the claims of the records it has not begun (claimed again at their turn), so that two
 * invocations never wait on each other.
 *
 * <p>A record is reported as a failure when it is still busy, or the store still cannot answer,
 * once that time is up, when its work
 * threw, or when it has no usable key (so the queue's redrive policy moves it
 * to the dead-letter queue after {@code maxReceiveCount}); a processed record, a duplicate, and one
 * whose work ran but whose completion could not be recorded are done. On a FIFO queue a record that
 * is not done holds back its message group: it and every later record of its group are reported,
 * so that no group runs ahead of a failed message — a record without a key included: nothing of
 * its group after it is claimed or run. Records of other groups go on. (AWS's advice is to report
 * the whole rest of the batch; but each reported record comes back and counts towards its {@code
 * maxReceiveCount}, so a poison message would get the events of other groups that share its
 * batches dead-lettered unapplied.) An {@code Error} from the work propagates after
 * what was done is completed: the invocation fails and Lambda returns the whole batch, whose done
 * records are then answered as duplicates.
 *
 * <p>In lease mode the claims of an invocation hold for its remaining time ({@link
 * Context#getRemainingTimeInMillis()}, through {@link Inbox#withLease}), whatever the inbox's lease:
 * nothing renews them while the work runs, so a shorter lease would lapse under work that takes
 * longer and let another delivery apply the event again; and an invocation that times out does not
 * keep its events busy after its end.
 */
public final class SqsLambdaBatch {

    private static final System.Logger LOG = System.getLogger(SqsLambdaBatch.class.getName());

    private static final String MESSAGE_GROUP_ID = MessageSystemAttributeName.MESSAGE_GROUP_ID.toString();

    /** The default pause before a busy record, or one the store could not claim, is claimed again. */
    public static final Duration DEFAULT_BUSY_BACKOFF = Duration.ofMillis(250);

    /** The least time an invocation keeps to record what is done and answer, when it waits in place. */
    private static final Duration LEAST_RESERVE = Duration.ofMillis(250);

    private final Function<Duration, Processor> processors;
    private final SqsKeys keys;
    private final Duration busyBackoff;

    private SqsLambdaBatch(Builder builder) {
        this.processors = builder.processors;
        this.keys = builder.keys;
        this.busyBackoff = builder.busyBackoff;
    }

    /**
     * Lease mode: the records of an invocation are claimed in one {@link dev.inbox.InboxClaims#claimAll}, for the
     * invocation's remaining time (not the inbox's lease: nothing renews them, and an invocation
     * cannot outlive its time).
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder lease(Inbox inbox, SqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder(remaining -> new LeaseProcessor(inbox.withLease(remaining), handler));
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
        Processor processor = new TransactionalProcessor(inbox, handler);
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
        Groups groups = new Groups(records, fifo);
        List<SqsMessage> messages = new ArrayList<>();
        List<Integer> keyed = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        boolean[] failed = new boolean[records.size()];
        Set<String> keylessGroups = new HashSet<>();
        for (int i = 0; i < records.size(); i++) {
            SqsMessage message = SqsMessage.of(sdkMessage(records.get(i)));
            messages.add(message);
            String id = processor.idOf(keys, message);
            if (id == null) {
                failed[i] = true;
                groups.stop(keylessGroups, i);
            } else if (!groups.stopped(keylessGroups, i)) {
                // on FIFO nothing of a group runs ahead of a record of it that is not done
                keyed.add(i);
                ids.add(id);
            }
        }
        if (!keyed.isEmpty()) {
            long reserve = Math.max(LEAST_RESERVE.toMillis(), remainingMillis / 5);
            long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(remainingMillis - reserve);
            new Invocation(processor, messages, groups, waitUntil).run(keyed, ids, failed);
        }
        List<SQSBatchResponse.BatchItemFailure> failures = failures(records, failed, groups);
        if (!records.isEmpty() && failures.size() == records.size()) {
            throw new SqsBatchFailedException(failures.stream()
                    .map(SQSBatchResponse.BatchItemFailure::getItemIdentifier)
                    .toList());
        }
        return new SQSBatchResponse(failures);
    }

    /**
     * The records to report: each that failed (or had no key), and on FIFO every later record of
     * its group.
     */
    private static List<SQSBatchResponse.BatchItemFailure> failures(
            List<SQSEvent.SQSMessage> records, boolean[] failed, Groups groups) {
        List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
        Set<String> stopped = new HashSet<>();
        for (int i = 0; i < records.size(); i++) {
            if (failed[i] || groups.stopped(stopped, i)) {
                groups.stop(stopped, i);
                failures.add(
                        new SQSBatchResponse.BatchItemFailure(records.get(i).getMessageId()));
            }
        }
        return failures;
    }

    /** One invocation's keyed records, run in order, waiting in place until {@code waitUntil}. */
    private final class Invocation {
        private final Processor processor;
        private final List<SqsMessage> messages;
        private final Groups groups;
        private final long waitUntil;
        private boolean waited;

        Invocation(Processor processor, List<SqsMessage> messages, Groups groups, long waitUntil) {
            this.processor = processor;
            this.messages = messages;
            this.groups = groups;
            this.waitUntil = waitUntil;
        }

        void run(List<Integer> keyed, List<String> ids, boolean[] failed) {
            Processor.Batch batch = claim(keyed, ids);
            if (batch == null) {
                keyed.forEach(i -> failed[i] = true);
                return;
            }
            int next = 0;
            Set<String> stopped = new HashSet<>();
            try {
                for (; next < keyed.size(); next++) {
                    int i = keyed.get(next);
                    if (groups.stopped(stopped, i)) {
                        batch.giveBack(next);
                        continue;
                    }
                    failed[i] = !done(batch, next, messages.get(i));
                    if (failed[i]) {
                        groups.stop(stopped, i);
                    }
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

        /** Claims the keyed records, tried again while the store cannot answer and time is left; null after that. */
        private Processor.@Nullable Batch claim(List<Integer> keyed, List<String> ids) {
            while (true) {
                try {
                    return processor.claim(ids, Processor.at(messages, keyed));
                } catch (InboxStoreException storeDown) {
                    if (!pause()) {
                        LOG.log(
                                Level.WARNING,
                                "the store could not claim the batch while the invocation had time; every record is"
                                        + " reported",
                                storeDown);
                        return null;
                    }
                }
            }
        }

        /**
         * Runs one record, waiting in place while its event is busy or the store cannot answer;
         * false when it is not done (its work threw, or the time to wait is up).
         */
        private boolean done(Processor.Batch batch, int index, SqsMessage message) {
            boolean first = true;
            while (true) {
                try {
                    HandleOutcome outcome = first ? batch.run(index, message) : batch.retry(index, message);
                    if (outcome != HandleOutcome.BUSY) {
                        return true;
                    }
                } catch (InboxStoreException storeDown) {
                    LOG.log(Level.DEBUG, "the store could not answer for " + message + "; waited for", storeDown);
                } catch (Exception workFailed) {
                    LOG.log(Level.WARNING, "the work of " + message + " failed; reported", workFailed);
                    return false;
                }
                if (!waited) {
                    batch.beforeWaiting(index);
                    waited = true;
                }
                if (!pause()) {
                    LOG.log(
                            Level.WARNING,
                            "{0} still busy, or the store still down, with the invocation''s reserve reached;"
                                    + " reported",
                            message);
                    return false;
                }
                first = false;
            }
        }

        /** Waits one busy back-off; false when that would pass {@link #waitUntil}, or when interrupted. */
        private boolean pause() {
            if (waitUntil - System.nanoTime() < busyBackoff.toNanos()) {
                return false;
            }
            try {
                Thread.sleep(Math.max(1, busyBackoff.toMillis()));
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * The message groups of an invocation's records on a FIFO queue: a record that is not done stops
     * its group, and the group's later records are neither run nor done. On a standard queue nothing
     * stops anything.
     */
    private static final class Groups {
        private final @Nullable List<String> groupOf;

        Groups(List<SQSEvent.SQSMessage> records, boolean fifo) {
            this.groupOf = fifo ? records.stream().map(Groups::groupOf).toList() : null;
        }

        private static String groupOf(SQSEvent.SQSMessage record) {
            Map<String, String> attributes = record.getAttributes();
            String group = attributes == null ? null : attributes.get(MESSAGE_GROUP_ID);
            return group == null ? "" : group;
        }

        /** Records that record {@code i}'s group is stopped, in {@code stopped}. */
        void stop(Set<String> stopped, int i) {
            if (groupOf != null) {
                stopped.add(groupOf.get(i));
            }
        }

        /** Whether record {@code i}'s group is in {@code stopped}. */
        boolean stopped(Set<String> stopped, int i) {
            return groupOf != null && stopped.contains(groupOf.get(i));
        }
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
        private Duration busyBackoff = DEFAULT_BUSY_BACKOFF;

        private Builder(Function<Duration, Processor> processors) {
            this.processors = processors;
        }

        /**
         * The pause before a record whose event another delivery holds, or that the store could not
         * claim, is claimed again within the invocation; default 250 ms ({@link #DEFAULT_BUSY_BACKOFF}).
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder busyBackoff(Duration busyBackoff) {
            this.busyBackoff = dev.inbox.spi.InboxArguments.requirePositive(busyBackoff, "busyBackoff");
            return this;
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
