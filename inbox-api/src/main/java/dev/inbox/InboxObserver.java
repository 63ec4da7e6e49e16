package dev.inbox;

import dev.inbox.spi.ClaimResult;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Observes the steps an {@link Inbox} takes around one event — the claim, the work, the completion
 * — and its purges, for tracing: each step is started before and closed after, and is current
 * while it runs, so spans of the work nest under the {@code work} step. {@code
 * ObservationInboxObserver} in {@code inbox-micrometer} turns each step into a Micrometer {@code
 * Observation} ({@code inbox.claim}, {@code inbox.work}, {@code inbox.complete}, {@code
 * inbox.purge}), which Micrometer Tracing makes spans of, children of the current one (a listener's
 * or an adapter's receive span).
 *
 * <p>Implementations must be thread-safe and must not throw.
 */
public interface InboxObserver {

    /** Observes nothing. */
    InboxObserver NONE = (step, consumer, id, store) -> Step.NONE;

    /**
     * Starts observing {@code step}.
     *
     * @param step {@code claim}, {@code work}, {@code complete}, {@code claimAll}, {@code completeAll}
     *     or {@code purge}
     * @param consumer the inbox's consumer
     * @param id the event's id, or null for a step on many (a batch, a purge); high cardinality:
     *     never a metric tag
     * @param store the store's kind (its class's simple name)
     * @return the step, to be closed when it ends
     */
    Step start(String step, String consumer, @Nullable String id, String store);

    /**
     * Starts observing the receipt of one message by a plain broker adapter (the Kafka loop, the
     * RabbitMQ consumer, the SQS loop), before its claim: an implementation reads the trace context
     * the producer put in the message's headers ({@code traceparent}, {@code b3}, …) through {@code
     * header}, so the steps of the event join the producer's trace. The default observes nothing.
     *
     * @param consumer the inbox's consumer
     * @param broker {@code kafka}, {@code rabbitmq} or {@code sqs}
     * @param header the message's header of a name, as text, or null when it has none
     * @return the receipt, to be closed when the message was settled
     */
    default Step receive(String consumer, String broker, Function<String, @Nullable String> header) {
        return Step.NONE;
    }

    /**
     * The outcome a {@code claim} step reports for {@code result}: {@code acquired}, {@code
     * taken_over}, {@code duplicate} or {@code busy}.
     *
     * @throws IllegalArgumentException if {@code result} is null
     */
    static String claimOutcome(ClaimResult result) {
        if (result == null) {
            throw new IllegalArgumentException("result must not be null");
        }
        if (result.isTakeover()) {
            return "taken_over";
        }
        return switch (result.status()) { // constants: this runs on every claim
            case ACQUIRED -> "acquired";
            case DUPLICATE -> "duplicate";
            case BUSY -> "busy";
        };
    }

    /** One observed step: given its outcome or error, then closed. */
    interface Step extends AutoCloseable {

        /** A step that records nothing. */
        Step NONE = () -> {};

        /**
         * How the step came out, a low-cardinality value: for a claim {@code acquired}, {@code
         * taken_over}, {@code duplicate} or {@code busy}; for work {@code done} or {@code failed};
         * for a completion {@code completed} or {@code lease_lost}.
         */
        default void outcome(String outcome) {}

        /** The step failed with {@code error}. */
        default void error(Throwable error) {}

        /** Ends the step. */
        @Override
        void close();
    }
}
