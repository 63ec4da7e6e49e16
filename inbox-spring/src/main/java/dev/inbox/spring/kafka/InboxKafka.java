package dev.inbox.spring.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.InboxStoreException;
import dev.inbox.spring.InboxBusyException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.CommonContainerStoppingErrorHandler;
import org.springframework.kafka.listener.CommonDelegatingErrorHandler;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CompositeBatchInterceptor;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.FailedRecordProcessor;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Installs an {@link InboxRecordInterceptor} (record listeners) or an {@link InboxBatchInterceptor}
 * (batch listeners) in Spring Kafka listener containers, with the error handling that keeps its
 * promise.
 *
 * <pre>{@code
 * @Bean
 * ContainerCustomizer<String, String, ConcurrentMessageListenerContainer<String, String>> inbox(SpringInbox inbox) {
 *     return InboxKafka.customizer(new InboxRecordInterceptor<>(inbox, RecordKeys.standard()));
 * }
 * }</pre>
 *
 * <p>The error handler's default gives up on a record after ten attempts and commits past it.
 * For a record whose event another delivery holds ({@link InboxBusyException}), or whose claim the
 * store could not answer ({@link InboxStoreException}), giving up would lose the event if that
 * other delivery then failed, so {@link #backOffFunction(Duration)} retries those without limit,
 * a back-off apart; every other failure keeps the handler's own back-off and recoverer.
 */
public final class InboxKafka {

    /** The default pause before a record whose event another delivery holds is redelivered. */
    public static final Duration DEFAULT_BUSY_BACKOFF = Duration.ofSeconds(1);

    private InboxKafka() {}

    /**
     * A customizer for a container factory ({@code factory.setContainerCustomizer(...)}) that
     * {@link #configure configures} every container it creates, with the default busy back-off.
     *
     * @throws IllegalArgumentException if {@code interceptor} is null
     */
    public static <K, V, C extends AbstractMessageListenerContainer<K, V>> ContainerCustomizer<K, V, C> customizer(
            InboxRecordInterceptor<K, V> interceptor) {
        requireNonNull(interceptor, "interceptor");
        return container -> configure(container, interceptor, DEFAULT_BUSY_BACKOFF);
    }

    /**
     * Installs {@code interceptor} in {@code container} and sets what it needs:
     *
     * <ul>
     *   <li>the interceptor runs after the container's own interceptors (one that filters a record
     *       out leaves it unclaimed), composed with them in a {@link CompositeRecordInterceptor};
     *   <li>it runs inside the container's transaction, if there is one ({@code
     *       setInterceptBeforeTx(false)}), so a claim joins a database transaction;
     *   <li>without a transaction manager: a container with no error handler gets {@link
     *       #errorHandler(Duration)}; one with a {@link DefaultErrorHandler} gets {@link
     *       #backOffFunction(Duration)}, which <em>replaces</em> a back-off function of its own;
     *   <li>with a transaction manager, failures are handled after the rollback: a {@code
     *       DefaultAfterRollbackProcessor} gets {@link #backOffFunction(Duration)}. Spring Kafka's default processor
     *       skips a record after ten attempts: give the container {@link
     *       #afterRollbackProcessor(Duration)}, or one with a dead-letter recoverer. Give such a
     *       container no common error handler: Spring Kafka would run it inside the transaction
     *       and commit the claim of a record the handler recovered.
     * </ul>
     *
     * <p>Without a transaction manager, a container whose ack mode commits an offset before the
     * claim is completed ({@code RECORD}, {@code COUNT}, {@code TIME}, {@code COUNT_TIME}, {@code
     * MANUAL_IMMEDIATE}) is refused with an {@link IllegalStateException}: keep {@code BATCH} (the
     * default) or {@code MANUAL}.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public static <K, V> void configure(
            AbstractMessageListenerContainer<K, V> container,
            InboxRecordInterceptor<K, V> interceptor,
            Duration busyBackoff) {
        requireNonNull(container, "container");
        requireNonNull(interceptor, "interceptor");
        requirePositive(busyBackoff, "busyBackoff");
        refuseEarlyCommits(container, RECORD_LISTENER_EARLY_COMMITS);
        RecordInterceptor<K, V> existing = container.getRecordInterceptor();
        if (existing == null) {
            container.setRecordInterceptor(interceptor);
        } else if (existing != interceptor) {
            container.setRecordInterceptor(new CompositeRecordInterceptor<>(existing, interceptor));
        }
        configureFailures(container, busyBackoff);
    }

    /**
     * Installs {@code interceptor} in the container of a batch listener, with what it needs, as
     * {@link #configure(AbstractMessageListenerContainer, InboxRecordInterceptor, Duration)} does
     * for a record listener ({@link CompositeBatchInterceptor} after the container's own). In lease
     * mode only {@code MANUAL_IMMEDIATE} is refused: the listener would commit while it runs.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public static <K, V> void configure(
            AbstractMessageListenerContainer<K, V> container,
            InboxBatchInterceptor<K, V> interceptor,
            Duration busyBackoff) {
        requireNonNull(container, "container");
        requireNonNull(interceptor, "interceptor");
        requirePositive(busyBackoff, "busyBackoff");
        refuseEarlyCommits(container, EnumSet.of(AckMode.MANUAL_IMMEDIATE));
        BatchInterceptor<K, V> existing = container.getBatchInterceptor();
        if (existing == null) {
            container.setBatchInterceptor(interceptor);
        } else if (existing != interceptor) {
            container.setBatchInterceptor(new CompositeBatchInterceptor<>(existing, interceptor));
        }
        configureFailures(container, busyBackoff);
    }

    /**
     * The ack modes under which Spring Kafka commits a record listener's offset before the record
     * interceptor's {@code success} (its {@code ackCurrent} runs first), or the listener commits it
     * itself ({@code MANUAL_IMMEDIATE}).
     */
    private static final Set<AckMode> RECORD_LISTENER_EARLY_COMMITS =
            EnumSet.of(AckMode.RECORD, AckMode.COUNT, AckMode.TIME, AckMode.COUNT_TIME, AckMode.MANUAL_IMMEDIATE);

    /**
     * In lease mode, an offset committed before the claim is completed is a window in which a
     * process that dies leaves the event applied and not recorded: it is never delivered again, and
     * a later re-send of it is applied again (adapter kit rule A14 failed the lease-mode record kit
     * under {@code RECORD}). {@code BATCH} (the default) and {@code MANUAL} commit after the
     * interceptor; in a transaction the claim commits with the work and {@link
     * CommitsAfterTransaction} holds the offsets until then, so every mode is accepted there.
     */
    private static void refuseEarlyCommits(AbstractMessageListenerContainer<?, ?> container, Set<AckMode> early) {
        ContainerProperties properties = container.getContainerProperties();
        AckMode mode = properties.getAckMode();
        if (properties.getTransactionManager() == null
                && properties.getKafkaAwareTransactionManager() == null
                && early.contains(mode)) {
            throw new IllegalStateException("listener container " + container.getListenerId() + " commits offsets with"
                    + " AckMode." + mode + ", which commits a record's offset before the inbox records its event as"
                    + " applied: a process that dies between the two leaves the event applied and unrecorded, and"
                    + " a later copy of it is applied again. Use AckMode.BATCH (the default) or MANUAL, or run the"
                    + " listener in a transaction (inbox.kafka.transactional=true with the starter)");
        }
    }

    private static void configureFailures(AbstractMessageListenerContainer<?, ?> container, Duration busyBackoff) {
        refuseAsyncListener(container);
        container.setInterceptBeforeTx(false);
        if (container.getContainerProperties().getTransactionManager() == null) {
            CommonErrorHandler handler = container.getCommonErrorHandler();
            if (handler == null) {
                container.setCommonErrorHandler(errorHandler(busyBackoff));
            } else if (handler instanceof FailedRecordProcessor processor) {
                adapt(processor, busyBackoff);
            } else if (handler instanceof CommonDelegatingErrorHandler delegating) {
                DefaultErrorHandler inbox = new DefaultErrorHandler();
                adapt(inbox, busyBackoff);
                delegating.setCauseChainTraversing(true);
                delegating.addDelegate(InboxBusyException.class, inbox);
                delegating.addDelegate(InboxStoreException.class, inbox);
            } else if (!(handler instanceof CommonContainerStoppingErrorHandler)) {
                throw new IllegalStateException("listener container " + container.getListenerId() + " has the error"
                        + " handler " + handler.getClass().getName() + ", which the inbox cannot make safe: it may"
                        + " commit past a record whose event another delivery holds (BUSY) and may still fail. Use a"
                        + " DefaultErrorHandler (the inbox sets its back-off function), a CommonDelegatingErrorHandler"
                        + " (the inbox adds delegates for its own failures), a CommonContainerStoppingErrorHandler,"
                        + " or none (the inbox installs InboxKafka.errorHandler)");
            }
        } else if (container.getAfterRollbackProcessor() instanceof FailedRecordProcessor processor) {
            adapt(processor, busyBackoff);
        }
    }

    private static void adapt(FailedRecordProcessor processor, Duration busyBackoff) {
        processor.setBackOffFunction(backOffFunction(busyBackoff));
        processor.addNotRetryableExceptions(MissingKeyException.class);
    }

    /**
     * Spring Kafka acknowledges an async listener's record (one returning a {@code CompletableFuture},
     * a {@code Mono} or a Kotlin {@code suspend} result) when its result completes, but calls the
     * interceptor's {@code success} when the method returns: the claim would be completed before the
     * work is done, and a result that then fails would leave the event COMPLETED without its effect.
     *
     * <p>Completing the claim when the result completes instead (wrapping the acknowledgement) is not
     * enough to make it safe, because the failure side cannot be known: Spring Kafka 4.0 hands a
     * failed result to the container's error handler only for a listener behind retry topics; for any
     * other, the failure is logged, the record is never acknowledged, and with out-of-order commits
     * the partition waits for it until a rebalance — nothing tells an interceptor, and nothing retries
     * it (spring-kafka issues 4198, 4333 and 4504 track this path, the last one a silent loss of a
     * second failing record). The refusal stays until the container reports both outcomes.
     */
    private static void refuseAsyncListener(AbstractMessageListenerContainer<?, ?> container) {
        Object listener = container.getContainerProperties().getMessageListener();
        if (listener instanceof AsyncRepliesAware async && async.isAsyncReplies()) {
            throw new IllegalStateException("listener " + container.getListenerId() + " returns an asynchronous result"
                    + " (CompletableFuture, Mono or a suspend function): the inbox would record its event as applied"
                    + " when the method returns, before the result completes. Make the listener method return"
                    + " void (do the work before it returns), or leave it out of the inbox (inbox.kafka.listener-ids)"
                    + " and call SpringInbox.handle inside its asynchronous work");
        }
    }

    /**
     * The error handler {@link #configure} installs in a container that has none: a {@link
     * DefaultErrorHandler} that retries a failing listener every {@code busyBackoff} without limit
     * (adapter kit rule A10: a poison record holds its partition and is never committed past —
     * Spring Kafka's own default tries ten times at once, then logs and commits past it, which skips
     * the event without applying or dead-lettering it; to move poison records aside, give the
     * container a {@code DefaultErrorHandler} with a {@code DeadLetterPublishingRecoverer}), with
     * {@link #backOffFunction(Duration)} for the inbox's own failures; and for a
     * record without a dedup key ({@link MissingKeyException}) a {@link
     * CommonContainerStoppingErrorHandler}: the container stops with the record's headers in the
     * log, rather than skip it — set a key header, or give the container an error handler whose
     * recoverer publishes such records to a dead-letter topic.
     *
     * @throws IllegalArgumentException if {@code busyBackoff} is null or not positive
     */
    public static CommonErrorHandler errorHandler(Duration busyBackoff) {
        DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(
                requirePositive(busyBackoff, "busyBackoff").toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
        adapt(handler, busyBackoff);
        CommonDelegatingErrorHandler delegating = new CommonDelegatingErrorHandler(handler);
        delegating.setCauseChainTraversing(true);
        delegating.addDelegate(MissingKeyException.class, new CommonContainerStoppingErrorHandler());
        return delegating;
    }

    /**
     * The after-rollback processor for a container whose listener runs in a transaction (Spring Kafka
     * hands failures to it instead of an error handler): a {@link DefaultAfterRollbackProcessor} that
     * retries a failing listener every {@code busyBackoff} without limit, and the inbox's own
     * failures as {@link #backOffFunction(Duration)} says — where Spring Kafka's default processor
     * tries ten times at once and then skips the record, an event neither applied nor dead-lettered
     * (adapter kit rule A10). The Boot starter installs it in the containers it makes transactional
     * when the application defines no {@code AfterRollbackProcessor}; to move poison records aside,
     * give the container a processor with a {@code DeadLetterPublishingRecoverer} instead.
     *
     * @throws IllegalArgumentException if {@code busyBackoff} is null or not positive
     */
    public static <K, V> DefaultAfterRollbackProcessor<K, V> afterRollbackProcessor(Duration busyBackoff) {
        DefaultAfterRollbackProcessor<K, V> processor = new StoppingOnMissingKey<>(new FixedBackOff(
                requirePositive(busyBackoff, "busyBackoff").toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
        adapt(processor, busyBackoff);
        return processor;
    }

    /**
     * A record without a dedup key stops the container, as {@link #errorHandler(Duration)} does
     * outside transactions: the records in hand are sought back first, so nothing past it is
     * committed, and it is never skipped.
     */
    private static final class StoppingOnMissingKey<K, V> extends DefaultAfterRollbackProcessor<K, V> {

        StoppingOnMissingKey(FixedBackOff backOff) {
            super(backOff);
        }

        @Override
        public void process(
                List<ConsumerRecord<K, V>> records,
                Consumer<K, V> consumer,
                MessageListenerContainer container,
                Exception exception,
                boolean recoverable,
                ContainerProperties.EOSMode eosMode) {
            if (!stopOnMissingKey(records, consumer, container, exception)) {
                super.process(records, consumer, container, exception, recoverable, eosMode);
            }
        }

        @Override
        public void processBatch(
                ConsumerRecords<K, V> records,
                List<ConsumerRecord<K, V>> recordList,
                Consumer<K, V> consumer,
                MessageListenerContainer container,
                Exception exception,
                boolean recoverable,
                ContainerProperties.EOSMode eosMode) {
            if (!stopOnMissingKey(recordList, consumer, container, exception)) {
                super.processBatch(records, recordList, consumer, container, exception, recoverable, eosMode);
            }
        }

        private boolean stopOnMissingKey(
                List<ConsumerRecord<K, V>> records,
                Consumer<K, V> consumer,
                MessageListenerContainer container,
                Exception exception) {
            if (!isCausedBy(exception, MissingKeyException.class)) {
                return false;
            }
            Map<TopicPartition, Long> firsts = new LinkedHashMap<>();
            for (ConsumerRecord<K, V> record : records) {
                firsts.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
            }
            firsts.forEach(consumer::seek);
            // Stopped from another thread, and abnormally (isInExpectedState() then answers false, which
            // health checks read), as CommonContainerStoppingErrorHandler does: the consumer thread
            // waits here until the container has stopped.
            Thread stopper =
                    new Thread(() -> container.stopAbnormally(() -> {}), "inbox-stop-" + container.getListenerId());
            stopper.setDaemon(true);
            stopper.start();
            try {
                ListenerUtils.stoppableSleep(container, 10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

    private static boolean isCausedBy(@Nullable Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * For an error handler's or after-rollback processor's {@code setBackOffFunction}: retries a
     * record that failed with {@link InboxBusyException} or {@link InboxStoreException} (anywhere
     * in the cause chain) every {@code busyBackoff}, without limit; null — the handler's own
     * back-off — for every other failure.
     *
     * @throws IllegalArgumentException if {@code busyBackoff} is null or not positive
     */
    public static BiFunction<ConsumerRecord<?, ?>, @Nullable Exception, @Nullable BackOff> backOffFunction(
            Duration busyBackoff) {
        BackOff untilDone = new FixedBackOff(
                requirePositive(busyBackoff, "busyBackoff").toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS);
        return (record, exception) -> isInboxFailure(exception) ? untilDone : null;
    }

    private static boolean isInboxFailure(@Nullable Throwable failure) {
        return isCausedBy(failure, InboxBusyException.class) || isCausedBy(failure, InboxStoreException.class);
    }
}
