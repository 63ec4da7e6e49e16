package dev.inbox.sqs;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Deliveries;
import dev.inbox.FailurePolicy;
import dev.inbox.Inbox;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * A consumer loop on an SQS queue (AWS SDK v2, no framework): each {@link #pollOnce()} receives up
 * to ten messages with long polling, claims them in one {@link dev.inbox.InboxClaims#claimAll}, runs your handler
 * for the new events in the order received, and deletes what is done in one {@code
 * DeleteMessageBatch}.
 *
 * <pre>{@code
 * SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queueUrl, inbox, message -> mailer.send(message.body()))
 *         .keys(SqsKeys.attribute("event-id"))
 *         .build();
 * loop.run(); // until loop.stop() from another thread; or call pollOnce() yourself
 * }</pre>
 *
 * <table>
 *   <caption>What each received message comes to</caption>
 *   <tr><th>outcome</th><th>on the queue</th></tr>
 *   <tr><td>processed, or a duplicate of an applied event</td><td>deleted</td></tr>
 *   <tr><td>busy (another delivery holds the event)</td><td>kept in hand, its visibility renewed,
 *       and claimed again every {@linkplain Builder#busyBackoff busy back-off} until the other
 *       delivery lets go (the rest of the receive waits): never deleted, since the other attempt may
 *       fail, and never put back, since each receive counts towards the redrive policy's {@code
 *       maxReceiveCount}; put back only when the loop stops</td></tr>
 *   <tr><td>the work threw an {@code Exception} (its claim released)</td><td>visible again after the
 *       {@linkplain Builder#failureBackoff failure back-off}; each receive counts towards the
 *       queue's redrive policy, which moves a message that keeps failing to its dead-letter queue
 *       after {@code maxReceiveCount}. With a {@linkplain Builder#failurePolicy failure policy}: after
 *       its back-off, and once it gives up, sent to the dead-letter queue and deleted</td></tr>
 *   <tr><td>the work threw an {@code Error} (its claim released)</td><td>what was done before it is
 *       completed and deleted, it and the rest are made visible at once, and the {@code Error}
 *       propagates</td></tr>
 *   <tr><td>the store could not answer the claim</td><td>kept in hand, its visibility renewed,
 *       and claimed again every {@linkplain Builder#failureBackoff failure back-off} until the store
 *       answers (never put back, which would count towards {@code maxReceiveCount}); put back when
 *       the loop stops</td></tr>
 *   <tr><td>the work ran, but its completion could not be recorded</td><td>deleted: handed out
 *       again, it would be applied again once the lease ends</td></tr>
 *   <tr><td>no usable key ({@link SqsKeys} found none, threw, or gave one that is not a valid
 *       key)</td><td>sent to the dead-letter queue (the {@linkplain Builder#deadLetterQueue named
 *       one}, else the redrive policy's) and deleted; without either, left on the queue for its
 *       visibility timeout: never processed without deduplication</td></tr>
 * </table>
 *
 * <p><b>Leases and visibility.</b> A message must stay invisible at least as long as its claim's
 * lease, or SQS hands it out again while the claim is held. Receives ask for the {@linkplain
 * Builder#visibilityTimeout visibility timeout given}, which may not be shorter than the lease; with
 * none given, for the queue's own, or for the lease (rounded up to a second) when the queue's is
 * shorter — so the inbox's default lease of a minute works on a new queue's default 30 s, and
 * {@link #visibilityTimeout()} says which. While a receive's messages are worked
 * on, a renewal every third of the shorter of the two extends both, the claims ({@link
 * dev.inbox.Claim#renew()}) and the messages' visibility ({@code ChangeMessageVisibilityBatch}), so
 * work longer than either is neither taken over nor handed out again. A message whose work is done
 * stays renewed too until the receive ends, when the done messages are completed in one {@link
 * dev.inbox.InboxClaims#completeAll} and deleted in one batch: until then its record is still in progress, and a
 * lapsed lease would let another consumer apply it again.
 *
 * <p><b>FIFO queues.</b> Messages of one {@code MessageGroupId} stay in order: a failed message
 * stops the later messages of its group in the same receive (their claims released, made visible
 * with it); a busy one is waited for in place, so the later ones wait behind it; one without a
 * usable key that stays on the queue (no dead-letter queue to send it to) stops its group too. {@code MessageDeduplicationId} is SQS's own five-minute window against
 * re-sends; the inbox covers what comes after it, and redeliveries, which that window does not.
 *
 * <p>At the first poll the loop reads the queue's attributes ({@link #queue()}) and logs a warning
 * when the inbox's retention is shorter than {@link QueueSettings#requiredRetention()}.
 *
 * <p>{@link #transactional} claims each message inside a database transaction together with the
 * handler's writes ({@link TransactionalInbox#handle}) and deletes it after the commit: a consumer
 * that dies before the commit leaves neither, and SQS hands the message out again after its
 * visibility timeout — exactly once for effects in that database.
 *
 * <p>Not thread-safe: call {@link #pollOnce()} or {@link #run()} from one thread; {@link #stop()}
 * and {@link #counts()} from any.
 */
public final class SqsInboxLoop {

    private static final System.Logger LOG = System.getLogger(SqsInboxLoop.class.getName());

    /** The queues whose short retention was logged already: once per queue and JVM, not per loop. */
    private static final java.util.Set<String> WARNED = ConcurrentHashMap.newKeySet();

    final SqsClient sqs;
    final String queueUrl;
    final Processor processor;
    final SqsKeys keys;
    private final int maxMessages;
    private final Duration waitTime;
    private final @Nullable Duration visibilityOverride;
    /** What receives ask for, once {@link #queue()} read the queue's own. */
    volatile Duration receiveVisibility = Duration.ZERO;

    final Duration busyBackoff;
    final Duration failureBackoff;
    /** The failed attempts of each event whose work threw; null without a failure policy (put back for ever). */
    final FailurePolicy.@Nullable Attempts attempts;

    final @Nullable String deadLetterQueue;
    private volatile @Nullable QueueSettings queue;
    volatile boolean stopping;
    final DeliveryCounts counts;

    private SqsInboxLoop(Builder builder) {
        this.sqs = builder.sqs;
        this.queueUrl = builder.queueUrl;
        this.processor = builder.processor;
        this.counts = builder.counts;
        this.keys = builder.keys;
        this.maxMessages = builder.maxMessages;
        this.waitTime = builder.waitTime;
        this.visibilityOverride = builder.visibility;
        this.busyBackoff = builder.busyBackoff;
        this.failureBackoff = builder.failureBackoff;
        this.attempts = builder.failurePolicy == null ? null : builder.failurePolicy.attemptsOf();
        this.deadLetterQueue = builder.deadLetterQueue;
    }

    /**
     * A loop in lease mode: the messages of a receive are claimed in one {@link dev.inbox.InboxClaims#claimAll} and
     * {@code handler} runs for the acquired ones.
     *
     * @throws IllegalArgumentException if an argument is null or {@code queueUrl} is empty
     */
    public static Builder lease(SqsClient sqs, String queueUrl, Inbox inbox, SqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder(
                sqs,
                queueUrl,
                new LeaseProcessor(inbox, handler),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode: each message is claimed inside a database transaction together
     * with {@code handler}'s writes, and deleted after that transaction commits.
     *
     * @throws IllegalArgumentException if an argument is null or {@code queueUrl} is empty
     */
    public static Builder transactional(
            SqsClient sqs, String queueUrl, TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder(
                sqs,
                queueUrl,
                new TransactionalProcessor(inbox, handler),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode with one transaction per receive ({@link
     * TransactionalInbox#handleAll}): the claims and writes of up to ten messages, one commit, then
     * one {@code DeleteMessageBatch} — one durable write per receive instead of one per message. The
     * transaction ends at the first busy message (what came before commits; it and the rest are put
     * back after the busy back-off); work that throws rolls the whole receive back, and its messages
     * are then handled one transaction each, so the failing one is retried alone.
     *
     * @throws IllegalArgumentException if an argument is null or {@code queueUrl} is empty
     */
    public static Builder transactionalBatch(
            SqsClient sqs, String queueUrl, TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder(
                sqs,
                queueUrl,
                new TransactionalBatchProcessor(inbox, handler),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * The queue's attributes, read at the first call (one {@code GetQueueAttributes}, and a {@code
     * GetQueueUrl} for the redrive policy's dead-letter queue).
     *
     * @throws SdkException if SQS could not answer
     */
    public QueueSettings queue() {
        QueueSettings read = queue;
        if (read != null) {
            return read;
        }
        read = QueueSettings.read(sqs, queueUrl);
        Duration visibility = visibilityOverride;
        if (visibility == null) {
            Duration lease = Duration.ofSeconds(Invisibility.seconds(processor.lease()));
            visibility = lease.compareTo(read.visibilityTimeout()) > 0 ? lease : read.visibilityTimeout();
        }
        receiveVisibility = visibility;
        Duration required = new QueueSettings(
                        visibility,
                        read.messageRetention(),
                        read.maxReceiveCount(),
                        read.deadLetterQueueUrl(),
                        read.fifo())
                .requiredRetention();
        if (processor.retention().compareTo(required) < 0 && WARNED.add(queueUrl)) {
            LOG.log(
                    Level.WARNING,
                    "the inbox retention (" + processor.retention() + ") is shorter than " + queueUrl + " needs ("
                            + required + ": maxReceiveCount " + read.maxReceiveCount() + " x visibility timeout "
                            + visibility + ", message retention " + read.messageRetention()
                            + "): a redelivery after it would be applied again");
        }
        queue = read;
        return read;
    }

    /**
     * The visibility timeout each receive asks for: the one given to the builder, else the queue's
     * own, or the inbox's lease (in whole seconds) when the queue's is shorter. Reads the queue's
     * attributes first if no poll has.
     *
     * @throws SdkException if SQS could not answer
     */
    public Duration visibilityTimeout() {
        queue();
        return receiveVisibility;
    }

    /**
     * Receives once (waiting up to the {@linkplain Builder#waitTime wait time}) and handles what
     * came, as the class documentation says.
     *
     * @return how many messages were received
     * @throws SdkException if the receive failed (nothing was received)
     * @throws Error what the handler threw, after what was done was deleted and the rest made
     *     visible
     */
    public int pollOnce() {
        QueueSettings settings = queue();
        if (stopping) {
            return 0;
        }
        ReceiveMessageRequest.Builder request = ReceiveMessageRequest.builder()
                .queueUrl(queueUrl)
                .maxNumberOfMessages(maxMessages)
                .waitTimeSeconds((int) waitTime.toSeconds())
                .messageAttributeNames("All")
                .messageSystemAttributeNames(
                        MessageSystemAttributeName.MESSAGE_GROUP_ID,
                        MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                        MessageSystemAttributeName.SENT_TIMESTAMP);
        if (!receiveVisibility.equals(settings.visibilityTimeout())) {
            request.visibilityTimeout(Invisibility.seconds(receiveVisibility));
        }
        List<Message> received = sqs.receiveMessage(request.build()).messages();
        if (!received.isEmpty()) {
            new Receive(this, received, settings).handle();
        }
        return received.size();
    }

    /**
     * Receives and handles until {@link #stop()} is called: the message in hand is finished and
     * deleted, the messages of its receive not yet begun are made visible at once for the next
     * consumer (their claims released). A failed receive (SQS unreachable after the SDK's own
     * retries) is logged and tried again after the failure back-off; an {@code Error} from the
     * handler ends it. The client stays open: it is yours.
     */
    public void run() {
        while (!stopping) {
            try {
                pollOnce();
            } catch (SdkException unreachable) {
                if (stopping) {
                    return;
                }
                LOG.log(Level.WARNING, "receiving from " + queueUrl + " failed; trying again", unreachable);
                sleep(failureBackoff);
            }
        }
    }

    /**
     * Asks the loop to stop after the message in hand: {@link #run()} returns once it is done and
     * deleted. Safe to call from any thread, and more than once.
     */
    public void stop() {
        stopping = true;
    }

    /**
     * What this loop has done since it was built. Each message's outcome is also reported to the
     * inbox's {@link dev.inbox.InboxMetrics#delivered} (the {@code inbox.deliveries} meter of {@code
     * inbox-micrometer}).
     */
    public Deliveries counts() {
        return counts.snapshot();
    }

    /** A call that fails while the loop stops (its client closed under it, most often) is no news. */
    Level quietWhenStopping() {
        return stopping ? Level.DEBUG : Level.WARNING;
    }

    /** Sleeps for {@code duration}; false (the interrupt flag kept) when interrupted. */
    static boolean pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Configures an {@link SqsInboxLoop}; each setter checks its argument at once. */
    public static final class Builder {
        private final SqsClient sqs;
        private final String queueUrl;
        private final Processor processor;
        private final DeliveryCounts counts;
        private SqsKeys keys = SqsKeys.standard();
        private int maxMessages = 10;
        private Duration waitTime = Duration.ofSeconds(20);
        private @Nullable Duration visibility;
        private Duration busyBackoff = Duration.ofSeconds(1);
        private Duration failureBackoff = Duration.ofSeconds(5);
        private @Nullable FailurePolicy failurePolicy;
        private @Nullable String deadLetterQueue;

        private Builder(SqsClient sqs, String queueUrl, Processor processor, DeliveryCounts counts) {
            this.sqs = requireNonNull(sqs, "sqs");
            requireArgument(queueUrl != null && !queueUrl.isBlank(), "queueUrl must not be null or empty");
            this.queueUrl = queueUrl;
            this.processor = processor;
            this.counts = counts;
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

        /**
         * How many messages one receive asks for, 1 to 10; default 10.
         *
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxMessages(int maxMessages) {
            requireArgument(
                    maxMessages >= 1 && maxMessages <= 10, "maxMessages must be 1 to 10 but was " + maxMessages);
            this.maxMessages = maxMessages;
            return this;
        }

        /**
         * How long a receive waits for a message (long polling), 0 to 20 s in whole seconds; default
         * 20 s, the cheapest. {@link #stop()} may wait this long for the receive in progress.
         *
         * @throws IllegalArgumentException if null, negative, over 20 s or not whole seconds
         */
        public Builder waitTime(Duration waitTime) {
            requireNonNull(waitTime, "waitTime");
            requireArgument(
                    !waitTime.isNegative()
                            && waitTime.compareTo(Duration.ofSeconds(20)) <= 0
                            && waitTime.toMillis() % 1000 == 0,
                    "waitTime must be whole seconds from 0 to 20 but was " + waitTime);
            this.waitTime = waitTime;
            return this;
        }

        /**
         * The visibility timeout each receive asks for; default the queue's own. Must not be shorter
         * than the inbox's lease.
         *
         * @throws IllegalArgumentException if null, under 1 s, over 12 hours, or shorter than the lease
         */
        public Builder visibilityTimeout(Duration visibilityTimeout) {
            requireNonNull(visibilityTimeout, "visibilityTimeout");
            requireArgument(
                    visibilityTimeout.compareTo(Duration.ofSeconds(1)) >= 0
                            && visibilityTimeout.toSeconds() <= Invisibility.MAX_VISIBILITY_SECONDS,
                    "visibilityTimeout must be from 1 s to 12 hours but was " + visibilityTimeout);
            requireArgument(
                    processor.lease().compareTo(visibilityTimeout) <= 0,
                    "visibilityTimeout (" + visibilityTimeout + ") must not be shorter than the inbox's lease ("
                            + processor.lease() + ")");
            this.visibility = visibilityTimeout;
            return this;
        }

        /**
         * How long the loop waits before it claims a busy message (another delivery holds its event)
         * again, the message held meanwhile; default 1 s. Also how long a busy message stays hidden
         * when the loop stops with it in hand (SQS counts in whole seconds: shorter rounds up to 1 s).
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder busyBackoff(Duration busyBackoff) {
            this.busyBackoff = dev.inbox.spi.InboxArguments.requireNonNegative(busyBackoff, "busyBackoff");
            return this;
        }

        /**
         * How long a message whose work threw stays hidden before SQS hands it out again (rounded up
         * to whole seconds), and how long the loop waits before it claims a message again that the
         * store could not claim (the message held meanwhile); default 5 s.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder failureBackoff(Duration failureBackoff) {
            this.failureBackoff = dev.inbox.spi.InboxArguments.requireNonNegative(failureBackoff, "failureBackoff");
            return this;
        }

        /**
         * How a message whose work threw is tried again: put back for the policy's back-off (rounded
         * up to whole seconds), and, once the policy gives up on its event (counted by dedup key, in
         * memory, in this loop), sent to the dead-letter queue ({@link #deadLetterQueue}, else the
         * redrive policy's) and deleted — or, with neither, put back all the same, never dropped.
         * Default: put back after {@link #failureBackoff} for as long as it fails, leaving the
         * give-up to the queue's redrive policy ({@code maxReceiveCount}), which also counts every
         * receive under a policy and comes first if lower.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder failurePolicy(FailurePolicy policy) {
            this.failurePolicy = requireNonNull(policy, "failurePolicy");
            return this;
        }

        /**
         * The queue a message without a usable key is moved to (and one the {@linkplain
         * #failurePolicy failure policy} gave up on); default the dead-letter queue of the queue's
         * redrive policy.
         *
         * @throws IllegalArgumentException if null or empty
         */
        public Builder deadLetterQueue(String queueUrl) {
            requireArgument(queueUrl != null && !queueUrl.isBlank(), "the dead-letter queue URL must not be empty");
            this.deadLetterQueue = queueUrl;
            return this;
        }

        /** Builds the loop; nothing is sent to SQS until the first poll. */
        public SqsInboxLoop build() {
            return new SqsInboxLoop(this);
        }
    }
}
