package dev.inbox.jdbc;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNegative;

import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The settings every JDBC store shares — where its tables are, how long records outlive their
 * expiry, how much one purge statement deletes and how it spaces its statements — each checked
 * when set.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class JdbcStoreBuilder<B extends JdbcStoreBuilder<B>> {

    /** The application's pool. */
    protected final DataSource dataSource;

    /** The schema (MySQL: database) of the tables, or null for the connection's default. */
    protected @Nullable SqlIdentifier schema;

    /** The inbox table. */
    protected SqlIdentifier table = SqlIdentifier.of("inbox", "table");

    /** The sequence guard's table. */
    protected SqlIdentifier sequenceTable = SqlIdentifier.of("inbox_sequence", "sequenceTable");

    /** How long records are kept past expiry. */
    protected Duration grace = Duration.ofHours(1);

    /** The most rows one purge statement deletes. */
    protected int purgeBatchSize = 10_000;

    /** How the purge spaces its batches. */
    protected PurgePacing purgePacing = PurgePacing.NONE;

    /** A builder on {@code dataSource}, which the caller has checked. */
    protected JdbcStoreBuilder(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The schema of the tables (a database in MySQL); default the connection's own.
     *
     * @throws IllegalArgumentException if not a plain identifier
     */
    public B schema(String schema) {
        this.schema = SqlIdentifier.of(schema, "schema");
        return self();
    }

    /**
     * The inbox table; default {@code inbox}.
     *
     * @throws IllegalArgumentException if not a plain identifier
     */
    public B table(String table) {
        this.table = SqlIdentifier.of(table, "table");
        return self();
    }

    /**
     * The sequence guard's table; default {@code inbox_sequence}.
     *
     * @throws IllegalArgumentException if not a plain identifier
     */
    public B sequenceTable(String sequenceTable) {
        this.sequenceTable = SqlIdentifier.of(sequenceTable, "sequenceTable");
        return self();
    }

    /**
     * How long a record is kept past its expiry, so that a duplicate arriving then is still
     * suppressed and reported late; default 1 hour.
     *
     * @throws IllegalArgumentException if null or negative
     */
    public B grace(Duration grace) {
        this.grace = requireNonNegative(grace, "grace");
        return self();
    }

    /**
     * The most rows one purge statement deletes; default 10,000.
     *
     * @throws IllegalArgumentException if not positive
     */
    public B purgeBatchSize(int purgeBatchSize) {
        requireArgument(purgeBatchSize > 0, "purgeBatchSize must be positive but was " + purgeBatchSize);
        this.purgeBatchSize = purgeBatchSize;
        return self();
    }

    /**
     * How long the purge rests after each statement, as a multiple of the time the statement took;
     * default 0, statements back to back. A purge on a busy server takes CPU and I/O from the
     * consumers' claims while it runs: with ratio {@code r} it uses at most {@code 1 / (1 + r)} of a
     * connection's time, so it runs up to {@code 1 + r} times as long and the claims' tail latency
     * grows less (benchmarks/README.md, "Purge while the consumers run", has the measured trade).
     * A purge interrupted while it rests stops and returns the rows deleted so far.
     *
     * @throws IllegalArgumentException if negative, above {@value PurgePacing#MAX_RATIO} or not a
     *     number
     */
    public B purgeNiceRatio(double ratio) {
        this.purgePacing = PurgePacing.ratio(ratio);
        return self();
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
