package dev.inbox.benchmarks.storm;

import java.sql.Connection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A real broker the storm publishes to and consumes from through inbox's adapter for it. */
interface BrokerDriver extends AutoCloseable {

    /** The broker and where it runs, for the report. */
    String describe();

    /** Publishes one record or message per element, carrying that event's index and id, in order. */
    void publish(List<Integer> events) throws Exception;

    /** Starts a consumer that runs deliveries through the adapter and {@code applier}. */
    Member join(Applier applier) throws Exception;

    /** True when every published record is consumed and committed (Kafka) or acknowledged (RabbitMQ). */
    boolean drained() throws Exception;

    /** What the adapters counted, over every member so far: duplicates and busy answers. */
    long[] duplicatesAndBusy();

    /** One consumer: a group member (Kafka) or a channel with its consumer (RabbitMQ). */
    interface Member {
        /** False once it crashed (or left). */
        boolean alive();

        /** Leaves: closes its client, committing or acknowledging nothing more. */
        void leave();
    }

    /** The storm's work for one delivery, with its faults; in transactional mode on {@code connection}. */
    @FunctionalInterface
    interface Applier {
        void apply(int event, @Nullable Connection connection) throws Exception;

        /**
         * A crash left {@code event} applied (its work returned) but not recorded as done: it may be
         * applied once more, and that extra application is this crash's. For adapters that record a
         * batch's work together (lease mode, completed per poll).
         */
        default void crashedBeforeRecording(int event) {}
    }

    /** A consumer dying mid-work: an Error, so that no adapter catches it as a failure of the work. */
    final class ConsumerCrash extends Error {
        private static final long serialVersionUID = 1L;

        ConsumerCrash() {
            super("simulated consumer crash", null, false, false);
        }
    }
}
