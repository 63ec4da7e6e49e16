package dev.inbox.micrometer;

import dev.inbox.InboxObserver;
import dev.inbox.spi.InboxArguments;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * {@link InboxObserver} on a Micrometer {@link ObservationRegistry}: each step is an {@link
 * Observation} — {@code inbox.claim}, {@code inbox.work}, {@code inbox.complete}, {@code
 * inbox.claimAll}, {@code inbox.completeAll}, {@code inbox.purge} — with the low-cardinality keys
 * {@code consumer}, {@code store} and {@code outcome} and, for one event, the high-cardinality key
 * {@code inbox.key} (its id, never a metric tag). Each is a child of the current observation (a
 * Spring Kafka or Spring AMQP listener's, or an adapter's {@code inbox.receive}) and is current
 * while it runs, so the work's own spans nest under {@code inbox.work}.
 *
 * <p>A plain adapter's {@code inbox.receive} is a {@link ReceiverContext} over the message's
 * headers: with Micrometer Tracing's propagating handler registered (Spring Boot registers it when
 * tracing is on), the event's spans join the producer's trace.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder(store)
 *         .consumer("billing")
 *         .observer(ObservationInboxObserver.of(observationRegistry))
 *         .build();
 * }</pre>
 */
public final class ObservationInboxObserver implements InboxObserver {

    private final ObservationRegistry registry;

    private ObservationInboxObserver(ObservationRegistry registry) {
        this.registry = registry;
    }

    /**
     * An observer that reports to {@code registry}.
     *
     * @throws IllegalArgumentException if {@code registry} is null
     */
    public static ObservationInboxObserver of(ObservationRegistry registry) {
        return new ObservationInboxObserver(InboxArguments.requireNonNull(registry, "registry"));
    }

    @Override
    public Step start(String step, String consumer, @Nullable String id, String store) {
        Observation observation = Observation.createNotStarted("inbox." + step, registry)
                .contextualName("inbox " + step)
                .lowCardinalityKeyValue("consumer", consumer)
                .lowCardinalityKeyValue("store", store);
        if (id != null) {
            observation.highCardinalityKeyValue("inbox.key", id);
        }
        return new Observed(observation.start());
    }

    @Override
    public Step receive(String consumer, String broker, Function<String, @Nullable String> header) {
        Observation observation = Observation.createNotStarted(
                        "inbox.receive",
                        () -> {
                            ReceiverContext<Function<String, @Nullable String>> context =
                                    new ReceiverContext<>((carrier, name) -> carrier.apply(name));
                            context.setCarrier(header);
                            context.setRemoteServiceName(broker);
                            return context;
                        },
                        registry)
                .contextualName(consumer + " receive")
                .lowCardinalityKeyValue("consumer", consumer)
                .lowCardinalityKeyValue("messaging.system", broker);
        return new Observed(observation.start());
    }

    /** A started observation, current until closed. */
    private static final class Observed implements Step {
        private final Observation observation;
        private final Observation.Scope scope;

        Observed(Observation observation) {
            this.observation = observation;
            this.scope = observation.openScope();
        }

        @Override
        public void outcome(String outcome) {
            observation.lowCardinalityKeyValue("outcome", outcome);
        }

        @Override
        public void error(Throwable error) {
            observation.error(error);
        }

        @Override
        public void close() {
            scope.close();
            observation.stop();
        }
    }
}
