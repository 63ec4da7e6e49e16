package dev.inbox.spring.amqp;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.rabbitmq.KeylessMessages;
import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spring.InboxBusyException;
import dev.inbox.spring.InboxClaim;
import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.MessagePropertiesConverter;

/**
 * Deduplicates the messages of a Spring AMQP listener container: a redelivery by RabbitMQ or a
 * re-send by the producer of an event already applied does not run the listener again — in lease
 * mode unless a crash fell between the listener and its record; inside the listener's transaction
 * with no such window.
 *
 * <pre>{@code
 * factory.setAdviceChain(new InboxRabbitAdvice(inbox, MessageKeys.standard()), retryInterceptor);
 * }</pre>
 *
 * <p>For each message, around the listener (acknowledge mode {@code AUTO}):
 *
 * <ul>
 *   <li>{@code ACQUIRED}: the listener runs; when it returns the claim is completed and the
 *       container acknowledges; when it throws the claim is released and, after the back-off, the
 *       container rejects it (requeues, or dead-letters) as it is configured to. The back-off keeps
 *       a poison message from looping at full speed; it is skipped for an {@code Error} and for an
 *       {@link AmqpRejectAndDontRequeueException} (a retry advice's {@code
 *       RejectAndDontRequeueRecoverer}), which are not requeued.
 *   <li>the store cannot answer the claim: the message is held on the consumer thread and claimed
 *       again every back-off; after the inbox's lease without an answer it is requeued ({@link
 *       ImmediateRequeueAmqpException}, the store's failure its cause), also under {@code
 *       defaultRequeueRejected=false}: nothing ran, so it is never dead-lettered for that.
 *   <li>{@code DUPLICATE}: the listener does not run and the container acknowledges the message.
 *   <li>{@code BUSY}: another delivery holds the event. The message is held on the consumer thread
 *       and claimed again every busy back-off — a quorum queue counts each requeue towards its
 *       {@code x-delivery-limit} and dead-letters past it — for up to the inbox's lease; then it is
 *       requeued ({@link ImmediateRequeueAmqpException}, which neither a retry advice nor {@code
 *       defaultRequeueRejected=false} turns into a dead letter): it is never dropped.
 *   <li>no dedup key (none found, the key function threw, an invalid key): never run. By default
 *       ({@link KeylessMessages#HOLD}) the message is held on the consumer thread — logged at {@code
 *       ERROR}, unacknowledged, that consumer stopped behind it as a Kafka partition stops at a
 *       record without a key — until the container stops or its channel closes, and then requeued
 *       ({@link ImmediateRequeueAmqpException}); a queue without a dead-letter exchange would drop a
 *       rejected message, and AMQP does not tell the advice whether its queue has one. With {@link
 *       #keylessMessages keylessMessages(DEAD_LETTER)}: {@link AmqpRejectAndDontRequeueException},
 *       so the container rejects it without requeue, to the queue's dead-letter exchange.
 *   <li>the listener ran but its completion could not be recorded: logged, and the message
 *       acknowledged (a requeue would apply it again once the lease ends).
 * </ul>
 *
 * <p>Under a container transaction that the claim does not join (a {@code RabbitTransactionManager},
 * a transacted channel, a transaction manager of another data source), the claim is completed
 * after that transaction commits and released if it rolls back ({@link
 * InboxClaim#completeAfterWork()}).
 *
 * <p>Acknowledge modes {@code MANUAL} and {@code NONE} are not supported: with {@code MANUAL} the
 * listener acknowledges, so the advice can neither hold a BUSY message back nor acknowledge a
 * duplicate it skipped; with {@code NONE} the broker forgets each message as it sends it. The advice
 * cannot see its container's mode as it runs, so install it with {@link
 * #applyTo(AbstractRabbitListenerContainerFactory)}, which refuses such a container as the factory
 * creates it (a {@code @RabbitListener(ackMode = "MANUAL")} included); the Spring Boot starter
 * refuses them at startup.
 *
 * <p><b>Order in the advice chain.</b> Put this advice <em>first</em>, outside a retry advice: one
 * claim then covers all of the retry's attempts, and a message the retry finally rejects to a
 * dead-letter exchange is released (replaying it from the dead-letter queue runs the listener).
 * A recoverer that returns normally instead ({@code RepublishMessageRecoverer}) makes the message
 * count as handled: its republished copy is a {@code DUPLICATE}. Keep the lease longer than all of
 * a retry's attempts together.
 *
 * <p><b>Transactional mode.</b> When the container's transaction manager is a {@code
 * DataSourceTransactionManager} (or a {@code JpaTransactionManager}) on the data source of a
 * {@link SpringInbox#joining joining} inbox, the advice runs inside that transaction and the claim
 * is written in it: the event's record and the listener's writes commit together, and a listener
 * that throws rolls both back.
 *
 * <p>Batch listeners are not supported: a batch reaches the advice as a list, which fails.
 */
public final class InboxRabbitAdvice implements MethodInterceptor {

    /**
     * The default pause before a message is requeued: its event held by another delivery (busy),
     * its work failed, or the store could not claim it.
     */
    public static final Duration DEFAULT_BUSY_BACKOFF = Duration.ofSeconds(1);

    private static final MessagePropertiesConverter PROPERTIES = new DefaultMessagePropertiesConverter();

    private final SpringInbox inbox;
    private final MessageKeys keys;
    private final Duration busyBackoff;
    private final boolean perQueue;
    private final KeylessMessages keyless;
    private final Map<String, SpringInbox> scopes = new ConcurrentHashMap<>();
    private final ListenerCounts counts = new ListenerCounts();

    /**
     * An advice that claims each message's event in {@code inbox} under the dedup id {@code keys}
     * gives it, with the default busy back-off.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public InboxRabbitAdvice(SpringInbox inbox, MessageKeys keys) {
        this(inbox, keys, DEFAULT_BUSY_BACKOFF);
    }

    /**
     * Like {@link #InboxRabbitAdvice(SpringInbox, MessageKeys)}, pausing {@code busyBackoff} before a
     * message is requeued — busy, its work failed, or the store could not claim it — as {@code
     * InboxConsumer}'s {@code busyRequeueDelay} does (the consumer thread waits, so the same message
     * does not come straight back).
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public InboxRabbitAdvice(SpringInbox inbox, MessageKeys keys, Duration busyBackoff) {
        this(inbox, keys, busyBackoff, false, KeylessMessages.HOLD);
    }

    private InboxRabbitAdvice(
            SpringInbox inbox, MessageKeys keys, Duration busyBackoff, boolean perQueue, KeylessMessages keyless) {
        this.inbox = requireNonNull(inbox, "inbox");
        this.keys = requireNonNull(keys, "keys");
        this.busyBackoff = requirePositive(busyBackoff, "busyBackoff");
        this.perQueue = perQueue;
        this.keyless = requireNonNull(keyless, "keylessMessages");
    }

    /**
     * This advice, with what a message without a usable dedup key comes to: {@link
     * KeylessMessages#HOLD} (the default: held on the consumer thread until the container stops,
     * then requeued) or {@link KeylessMessages#DEAD_LETTER} (rejected without requeue, to the
     * queue's dead-letter exchange — choose it only for queues that have one).
     *
     * @return a new advice; this one is unchanged
     * @throws IllegalArgumentException if null
     */
    public InboxRabbitAdvice keylessMessages(KeylessMessages keyless) {
        return new InboxRabbitAdvice(inbox, keys, busyBackoff, perQueue, requireNonNull(keyless, "keylessMessages"));
    }

    /**
     * An advice for a container factory shared by listeners of different queues: each queue's
     * messages are claimed under a consumer of its own ({@link SpringInbox#scoped(String)} with the
     * queue's name), so that an event routed to two queues is applied once by each queue's listener.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public static InboxRabbitAdvice perQueue(SpringInbox inbox, MessageKeys keys, Duration busyBackoff) {
        return new InboxRabbitAdvice(inbox, keys, busyBackoff, true, KeylessMessages.HOLD);
    }

    /**
     * Installs this advice in {@code factory}: first in its advice chain, before the advices it has
     * (a retry advice's attempts then share one claim), and a container customizer that refuses, as
     * each container is created, an acknowledge mode the advice cannot make safe ({@link
     * #refuseUnsafeAcknowledgeMode}). The customizer replaces one the factory had: a customizer of
     * your own must call {@link #refuseUnsafeAcknowledgeMode} itself.
     *
     * <pre>{@code
     * SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
     * factory.setConnectionFactory(connections);
     * new InboxRabbitAdvice(springInbox, MessageKeys.messageId()).applyTo(factory);
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code factory} is null
     */
    public <C extends AbstractMessageListenerContainer> void applyTo(
            AbstractRabbitListenerContainerFactory<C> factory) {
        putFirstIn(factory);
        factory.setContainerCustomizer(InboxRabbitAdvice::refuseUnsafeAcknowledgeMode);
    }

    /**
     * Puts this advice first in {@code factory}'s advice chain, before the advices it has, and
     * nothing else: for a factory whose container customizer must stay, which then refuses unsafe
     * acknowledge modes itself ({@link #refuseUnsafeAcknowledgeMode}; the Boot starter checks every
     * listener container at startup instead).
     *
     * @throws IllegalArgumentException if {@code factory} is null
     */
    public void putFirstIn(AbstractRabbitListenerContainerFactory<?> factory) {
        requireNonNull(factory, "factory");
        Advice[] chain = factory.getAdviceChain();
        Advice[] withInbox = new Advice[chain == null ? 1 : chain.length + 1];
        withInbox[0] = this;
        if (chain != null) {
            System.arraycopy(chain, 0, withInbox, 1, chain.length);
        }
        factory.setAdviceChain(withInbox);
    }

    /**
     * Refuses a container that acknowledges manually ({@code MANUAL}: the listener acknowledges, so
     * a BUSY message would never be requeued and a skipped duplicate never acknowledged) or not at
     * all ({@code NONE}: the broker forgets each message as it sends it, so a BUSY message, failed
     * work or a store outage loses the event).
     *
     * @throws IllegalStateException naming the container and what to change, for those two modes
     * @throws IllegalArgumentException if {@code container} is null
     */
    public static void refuseUnsafeAcknowledgeMode(AbstractMessageListenerContainer container) {
        requireNonNull(container, "container");
        String problem = unsafeAcknowledgeMode(container.getAcknowledgeMode());
        if (problem != null) {
            throw new IllegalStateException(
                    "inbox: the Rabbit listener container " + container.getListenerId() + " " + problem);
        }
    }

    /**
     * Why the inbox cannot make {@code mode} safe, and what to change, completing a sentence that names
     * the container; null for {@code AUTO}.
     */
    public static @Nullable String unsafeAcknowledgeMode(AcknowledgeMode mode) {
        return switch (requireNonNull(mode, "mode")) {
            case MANUAL ->
                "acknowledges manually (AcknowledgeMode.MANUAL), which the inbox cannot make safe: a"
                        + " BUSY message would never be requeued and a skipped duplicate never acknowledged. Use AUTO"
                        + " (the default) and let the listener throw to reject, or leave the listener out of the inbox"
                        + " and call SpringInbox.handle in it yourself";
            case NONE ->
                "takes messages without acknowledgements (AcknowledgeMode.NONE): the broker forgets each"
                        + " message as it sends it, so a BUSY message, failed work or a store outage loses the event."
                        + " Use AUTO (the default): remove ackMode = \"NONE\" or the factory's"
                        + " setAcknowledgeMode(NONE)";
            default -> null;
        };
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] arguments = invocation.getArguments();
        if (arguments.length != 2 || !(arguments[1] instanceof Message message)) {
            throw new IllegalStateException("InboxRabbitAdvice advises a listener container's invokeListener(channel,"
                    + " message); it does not support batch listeners, and was called with " + arguments.length
                    + " arguments");
        }
        String id = keyOrSetAside(message, arguments[0]);
        String queue = message.getMessageProperties().getConsumerQueue();
        SpringInbox target =
                perQueue && queue != null && !queue.isEmpty() ? scopes.computeIfAbsent(queue, inbox::scoped) : inbox;
        InboxClaim claim = claimHeldInPlace(target, id);
        switch (claim.status()) {
            case DUPLICATE:
                counts.record(DeliveryOutcome.DUPLICATE, target);
                return null;
            case BUSY:
                throw new ImmediateRequeueAmqpException(
                        "requeued after " + target.inbox().lease() + " held in place", new InboxBusyException(id));
            default:
                break;
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            claim.releaseAfterFailure(failure);
            if (requeued(failure)) {
                backOff();
            }
            throw failure;
        }
        counts.record(DeliveryOutcome.PROCESSED, target);
        claim.completeAfterWork();
        return result;
    }

    /**
     * Claims {@code id}, holding the message on the consumer thread while another delivery holds its
     * event or the store cannot answer, and claiming again every busy back-off — for at most the
     * inbox's lease (the longest a holder that died keeps the event), or until the container
     * interrupts the thread as it stops. Requeued only after that: a quorum queue counts each requeue
     * towards its {@code x-delivery-limit} and dead-letters past it.
     *
     * @return the claim: acquired, a duplicate, or still busy after the lease
     * @throws ImmediateRequeueAmqpException if the store could not answer for the whole lease
     */
    private InboxClaim claimHeldInPlace(SpringInbox target, String id) {
        long until = System.nanoTime() + target.inbox().lease().toNanos();
        while (true) {
            InboxClaim claim;
            try {
                claim = target.claim(id);
            } catch (InboxStoreException storeDown) {
                if (!backOff() || System.nanoTime() - until > 0) {
                    // Requeued whatever the container's defaultRequeueRejected says: nothing ran.
                    throw new ImmediateRequeueAmqpException(
                            "requeued: the inbox store could not claim " + id + " for "
                                    + target.inbox().lease(),
                            storeDown);
                }
                continue;
            }
            if (claim.status() != ClaimStatus.BUSY) {
                return claim;
            }
            counts.record(DeliveryOutcome.BUSY, target);
            if (!backOff() || System.nanoTime() - until > 0) {
                return claim;
            }
        }
    }

    /**
     * Waits the back-off on the consumer thread; false when interrupted (the container is stopping),
     * the interrupt flag kept.
     */
    private boolean backOff() {
        try {
            Thread.sleep(busyBackoff.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether the container requeues after {@code failure}: not an Error, nor a reject-and-don't-requeue. */
    private static boolean requeued(Throwable failure) {
        if (failure instanceof Error) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof AmqpRejectAndDontRequeueException) {
                return false;
            }
        }
        return true;
    }

    /**
     * The message's dedup key; without one, the message is set aside as {@link #keyless} says:
     * dead-lettered, or held here until the container stops (then requeued).
     */
    private String keyOrSetAside(Message message, Object channel) {
        try {
            return keyOf(message);
        } catch (AmqpRejectAndDontRequeueException keyless) {
            if (this.keyless == KeylessMessages.DEAD_LETTER) {
                inbox.delivered(DeliveryOutcome.DEAD_LETTERED);
                throw keyless;
            }
            LOG.log(
                    System.Logger.Level.ERROR,
                    keyless.getMessage().replace(KEYLESS_DEAD_LETTERED, KEYLESS_HELD),
                    keyless.getCause());
            while (!(channel instanceof com.rabbitmq.client.Channel open) || open.isOpen()) {
                if (!backOff()) {
                    break; // the container is stopping
                }
            }
            throw new ImmediateRequeueAmqpException(
                    "requeued as the consumer stops: " + keyless.getMessage().replace(KEYLESS_DEAD_LETTERED, ""),
                    keyless);
        }
    }

    private static final System.Logger LOG = System.getLogger(InboxRabbitAdvice.class.getName());
    private static final String KEYLESS_DEAD_LETTERED = "; rejected to the queue's dead-letter exchange";
    private static final String KEYLESS_HELD = "; held on the consumer thread, never run, until the container"
            + " stops (then requeued); choose keylessMessages(DEAD_LETTER) for a queue with a dead-letter exchange";

    private String keyOf(Message message) {
        MessageProperties properties = message.getMessageProperties();
        Envelope envelope = new Envelope(
                properties.getDeliveryTag(),
                Boolean.TRUE.equals(properties.isRedelivered()),
                properties.getReceivedExchange(),
                properties.getReceivedRoutingKey());
        Delivery delivery = new Delivery(
                envelope,
                PROPERTIES.fromMessageProperties(properties, StandardCharsets.UTF_8.name()),
                message.getBody());
        String where = "message " + properties.getMessageId() + " from queue " + properties.getConsumerQueue();
        String id;
        try {
            id = keys.keyOf(delivery);
            if (id != null) {
                InboxKey.of(inbox.inbox().consumer(), id);
            }
        } catch (RuntimeException e) {
            throw new AmqpRejectAndDontRequeueException(
                    where + " has no valid dedup key (" + e.getMessage() + ")" + KEYLESS_DEAD_LETTERED, e);
        }
        if (id == null) {
            throw new AmqpRejectAndDontRequeueException(where + " has no dedup key: it carries none of what the"
                    + " configured MessageKeys read (set inbox.rabbit.key-header, or MessageKeys, to where your"
                    + " producer puts its id)" + KEYLESS_DEAD_LETTERED);
        }
        return id;
    }

    /** What this adapter did with the deliveries it saw. */
    public ListenerCounts counts() {
        return counts;
    }

    @Override
    public String toString() {
        return "InboxRabbitAdvice[" + inbox + ", keyless messages: " + keyless + "]";
    }
}
