package dev.inbox.cli;

import dev.inbox.InboxKey;
import dev.inbox.InboxOperations;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code inbox}: the operator's command line over any store of this project, by URL. Exit codes:
 * 0 done (or found), 1 nothing found or changed, 2 bad usage or input, 3 the store failed.
 */
@Command(
        name = "inbox",
        mixinStandardHelpOptions = true,
        versionProvider = InboxCli.Version.class,
        description = "See and fix what an inbox store holds: inspect a key, list stuck leases, count by state,"
                + " release a lease, forget a key, purge.",
        footer = {
            "",
            "Store URLs: jdbc:postgresql://host/db?user=…, jdbc:mysql://host/db?user=… (MySQL or MariaDB),"
                    + " redis://host:port, rediss://…, redis-cluster://host:port, dynamodb://host:port (a local"
                    + " endpoint), dynamodb:aws (AWS, credentials and region from the SDK's default chain).",
            "Exit codes: 0 done or found, 1 nothing found or changed, 2 bad usage or input, 3 the store failed."
        },
        subcommands = {
            InboxCli.Inspect.class,
            InboxCli.Stuck.class,
            InboxCli.Stats.class,
            InboxCli.Release.class,
            InboxCli.Forget.class,
            InboxCli.Purge.class
        })
public final class InboxCli implements Callable<Integer> {

    /** Done, or found. */
    public static final int OK = 0;

    /** Nothing found, or nothing changed. */
    public static final int NOTHING = 1;

    /** Bad usage or bad input. */
    public static final int USAGE = 2;

    /** The store could not answer. */
    public static final int STORE_FAILED = 3;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--store",
            defaultValue = "${env:INBOX_STORE}",
            description = "The store's URL (default: the INBOX_STORE environment variable).")
    @Nullable
    String store;

    @Option(names = "--table", description = "The inbox table (SQL) or DynamoDB table, if not the default \"inbox\".")
    @Nullable
    String table;

    @Option(names = "--prefix", description = "The Redis key prefix, if not the default \"inbox\".")
    @Nullable
    String prefix;

    @Option(names = "--region", description = "The AWS region of a DynamoDB store.")
    @Nullable
    String region;

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    /** Runs the tool and exits with its code. */
    public static void main(String[] args) {
        System.exit(command().execute(args));
    }

    /** The command line, with this tool's exit codes for failures. */
    static CommandLine command() {
        CommandLine line = new CommandLine(new InboxCli());
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("inbox: " + describe(e));
            return e instanceof InboxStoreException ? STORE_FAILED : USAGE;
        });
        return line;
    }

    private static String describe(Exception e) {
        if (e instanceof InboxStoreException) {
            return "the store failed: " + e.getMessage();
        }
        if (e instanceof UnsupportedOperationException) {
            return e.getMessage();
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return USAGE;
    }

    /** Opens the store, runs {@code action} on its operations, and closes it. */
    int withStore(StoreAction action) {
        if (store == null || store.isBlank()) {
            throw new IllegalArgumentException("no store: give --store URL or set INBOX_STORE");
        }
        try (Stores opened = Stores.open(store, table, prefix, region)) {
            return action.run(opened, InboxOperations.of(opened.store()), new Output(out(), json));
        }
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** What a command does with the open store. */
    interface StoreAction {
        int run(Stores store, InboxOperations ops, Output output);
    }

    /** A duration as ISO-8601 ({@code PT5M}) or a number and a unit: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            if (v.startsWith("p")) {
                return Duration.parse(value.trim());
            }
            var m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h|d)").matcher(v);
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException(
                        "\"" + value + "\" is not a duration: use 500ms, 30s, 5m, 2h, 1d or ISO-8601 such as PT5M");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
    }

    /** The version of this jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = InboxCli.class.getPackage().getImplementationVersion();
            return new String[] {"inbox " + (version == null ? "(development build)" : version)};
        }
    }

    /** A consumer and an id: the key a command acts on. */
    abstract static class KeyCommand {
        @ParentCommand
        InboxCli cli;

        @Parameters(index = "0", description = "The consumer (the inbox's consumer name).")
        String consumer;

        @Parameters(index = "1", description = "The event's id (the dedup key).")
        String id;

        InboxKey key() {
            return InboxKey.of(consumer, id);
        }
    }

    @Command(name = "inspect", description = "Show one key's record: state, owner, lease or retention end, purge time.")
    static final class Inspect extends KeyCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            InboxKey key = key();
            return cli.withStore((store, ops, out) -> {
                Optional<RecordView> view = ops.inspect(key);
                out.record(key, view.orElse(null));
                return view.isPresent() ? OK : NOTHING;
            });
        }
    }

    @Command(
            name = "stuck",
            description = "List a consumer's leases that ended (their owner died or hangs), in id order.")
    static final class Stuck implements Callable<Integer> {
        @ParentCommand
        InboxCli cli;

        @Parameters(index = "0", description = "The consumer.")
        String consumer;

        @Option(
                names = "--overdue",
                defaultValue = "0s",
                converter = DurationConverter.class,
                description = "Only leases that ended at least this long ago (default: any).")
        Duration overdue;

        @Option(names = "--after", description = "Start after this id (the last id of the previous page).")
        @Nullable
        String after;

        @Option(names = "--limit", defaultValue = "100", description = "Records per page, 1 to 1000 (default: 100).")
        int limit;

        @Option(names = "--all", description = "Follow every page to the end.")
        boolean all;

        @Override
        public Integer call() {
            StuckQuery first = new StuckQuery(consumer, overdue, after, limit);
            return cli.withStore((store, ops, out) -> {
                List<RecordView> records = new ArrayList<>();
                StuckQuery query = first;
                StuckQuery next;
                do {
                    List<RecordView> page = ops.stuck(query);
                    records.addAll(page);
                    next = query.next(page);
                    query = next;
                } while (all && next != null);
                out.stuck(consumer, records, next == null ? null : next.after());
                return records.isEmpty() ? NOTHING : OK;
            });
        }
    }

    @Command(name = "stats", description = "Count a consumer's records by state.")
    static final class Stats implements Callable<Integer> {
        @ParentCommand
        InboxCli cli;

        @Parameters(index = "0", description = "The consumer.")
        String consumer;

        @Override
        public Integer call() {
            InboxKey.validate(consumer, "consumer");
            return cli.withStore((store, ops, out) -> {
                RecordCounts counts = ops.count(consumer);
                out.counts(consumer, counts);
                return OK;
            });
        }
    }

    /** A write on one key: without {@code --yes}, shows the record and changes nothing. */
    abstract static class WriteCommand extends KeyCommand implements Callable<Integer> {
        @Option(names = "--yes", description = "Do it; without it, show the record and change nothing.")
        boolean yes;

        /** What {@code --yes} would do, in the note a dry run prints. */
        abstract String doing();

        /** Does the write: true when a record changed. */
        abstract boolean write(InboxOperations ops, InboxKey key);

        /** How the output names a change: {@code released}, {@code forgotten}. */
        abstract String done();

        /** What the output says when nothing changed. */
        abstract String nothing();

        @Override
        public Integer call() {
            InboxKey key = key();
            return cli.withStore((store, ops, out) -> {
                if (!yes) {
                    out.record(key, ops.inspect(key).orElse(null));
                    out.note("nothing changed: add --yes to " + doing());
                    return NOTHING;
                }
                boolean changed = write(ops, key);
                out.changed(done(), key, changed, nothing());
                return changed ? OK : NOTHING;
            });
        }
    }

    @Command(
            name = "release",
            description = "End a key's lease whoever holds it, so the next delivery claims it now. Only for an owner"
                    + " known to be dead: if it still works, the event may be applied twice. Needs --yes.")
    static final class Release extends WriteCommand {
        @Override
        String doing() {
            return "release the lease";
        }

        @Override
        boolean write(InboxOperations ops, InboxKey key) {
            return ops.releaseLease(key);
        }

        @Override
        String done() {
            return "released";
        }

        @Override
        String nothing() {
            return "no lease held: the key is absent or completed";
        }
    }

    @Command(
            name = "forget",
            description = "Delete a key's record whatever its state: its next delivery is applied again (replay on"
                    + " purpose). Needs --yes.")
    static final class Forget extends WriteCommand {
        @Override
        String doing() {
            return "forget the record";
        }

        @Override
        boolean write(InboxOperations ops, InboxKey key) {
            return ops.forget(key);
        }

        @Override
        String done() {
            return "forgotten";
        }

        @Override
        String nothing() {
            return "no record of the key";
        }
    }

    @Command(
            name = "purge",
            description = "Remove the records past expiry + grace (all consumers). With --dry-run, only count a"
                    + " consumer's.")
    static final class Purge implements Callable<Integer> {
        @ParentCommand
        InboxCli cli;

        @Option(names = "--dry-run", description = "Change nothing: count what a purge would remove of --consumer.")
        boolean dryRun;

        @Option(names = "--consumer", description = "The consumer a dry run counts.")
        @Nullable
        String consumer;

        @Override
        public Integer call() {
            if (dryRun && consumer == null) {
                throw new IllegalArgumentException("--dry-run counts one consumer's records: give --consumer");
            }
            if (consumer != null) {
                InboxKey.validate(consumer, "consumer");
            }
            return cli.withStore((store, ops, out) -> {
                if (dryRun) {
                    long expired = ops.count(consumer).expired();
                    out.purge(consumer, expired, true);
                    return expired == 0 ? NOTHING : OK;
                }
                long removed = store.store().purge();
                out.purge(null, removed, false);
                return removed == 0 ? NOTHING : OK;
            });
        }
    }
}
