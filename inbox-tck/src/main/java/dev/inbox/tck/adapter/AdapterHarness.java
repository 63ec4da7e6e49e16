package dev.inbox.tck.adapter;

import org.jspecify.annotations.Nullable;

/**
 * What an adapter's test supplies to {@link AdapterContract}: a real broker destination of its
 * own, and consumers that run the adapter on it with the kit's pieces ({@link AdapterKit}).
 *
 * <p>Each consumer the harness starts must be wired like this:
 *
 * <ul>
 *   <li>its inbox is built over {@link AdapterKit#store(dev.inbox.spi.InboxStore)} (lease mode) or
 *       {@link AdapterKit#store(dev.inbox.jdbc.TransactionalInboxStore)} (transactional mode), for
 *       consumer {@link AdapterKit#consumer()} (or one name derived from it, as the Boot starter's
 *       {@code <consumer>/<group>}), lease {@link AdapterKit#lease()};
 *   <li>in transactional mode, the inbox and any transaction manager the adapter runs its
 *       transactions in get their connections from {@link
 *       AdapterKit#dataSource(javax.sql.DataSource)};
 *   <li>its key function returns {@link AdapterKit#keyOf(String, String)} of the message's {@value
 *       AdapterKit#ID_HEADER} header (null when absent) and body;
 *   <li>its handler calls {@link AdapterKit#apply(String, java.sql.Connection)} with the body (and,
 *       in transactional mode, the transaction's connection);
 *   <li>its dead-letter path (a recoverer, a dead-letter queue the harness reads) reports each
 *       message to {@link AdapterKit#deadLettered(String)};
 *   <li>every back-off it has is {@link AdapterKit#backoff()}.
 * </ul>
 */
public interface AdapterHarness extends AutoCloseable {

    /** Whether the adapter under test runs in lease or transactional mode. */
    enum Mode {
        LEASE,
        TRANSACTIONAL
    }

    /** The mode of the adapter under test. */
    Mode mode();

    /**
     * Publishes one message with body {@code payload} and, unless {@code id} is null, the header
     * {@value AdapterKit#ID_HEADER} set to {@code id}; returns once the broker has it.
     */
    void publish(@Nullable String id, String payload) throws Exception;

    /** Starts one consumer (its own broker connection) on this harness's destination. */
    Running start() throws Exception;

    /** Stops what is still running and deletes what the harness created on the broker. */
    @Override
    void close() throws Exception;

    /** A consumer the harness started. */
    interface Running {

        /**
         * Stops gracefully, as the adapter documents it: the message in hand is finished and
         * acknowledged (or committed), then the consumer closes. Called from a thread that is not
         * the consumer's; returns when it has stopped.
         */
        void stop() throws Exception;

        /**
         * Dies now, as a killed process would: the broker connection is cut without acknowledging
         * or committing anything more. May be called from the consumer's own thread (from inside
         * the handler, or from the store call or the commit that records its outcome) and must
         * then return without waiting for the handler to end.
         */
        void crash() throws Exception;

        /**
         * Cuts this consumer's broker connection as a network failure would, and keeps the broker
         * unreachable until {@link #restoreConnection()}: with a {@code FaultProxy} between the
         * client and the broker ({@code refuse()}: open connections cut, new ones refused), or —
         * for a client that connects to the addresses the broker advertises, which no proxy can
         * stand in for, as Kafka's — by making the client's calls to the broker fail or find
         * nothing, as they do while its connection is cut ({@link Outage}). The adapter is not
         * told: its own recovery, or its client's or container's, must bring it back.
         */
        void cutConnection() throws Exception;

        /** Makes the broker reachable again after {@link #cutConnection()}; returns at once. */
        void restoreConnection() throws Exception;
    }
}
