package dev.inbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.inbox.InboxKey;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What the commands print: lines a person reads, or one JSON document per command. */
final class Output {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final PrintWriter out;
    private final boolean json;

    Output(PrintWriter out, boolean json) {
        this.out = out;
        this.json = json;
    }

    void record(InboxKey key, @Nullable RecordView view) {
        if (json) {
            Map<String, Object> doc = keyOf(key);
            doc.put("found", view != null);
            if (view != null) {
                doc.putAll(fields(view));
            }
            print(doc);
        } else if (view == null) {
            out.println("no record of " + describe(key));
        } else {
            out.println(describe(key));
            for (Map.Entry<String, Object> field : fields(view).entrySet()) {
                out.printf("  %-12s %s%n", field.getKey(), field.getValue() == null ? "-" : field.getValue());
            }
        }
        out.flush();
    }

    void stuck(String consumer, List<RecordView> records, @Nullable String next) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("consumer", consumer);
            doc.put(
                    "stuck",
                    records.stream()
                            .map(r -> {
                                Map<String, Object> item = new LinkedHashMap<>();
                                item.put("id", r.key().id());
                                item.putAll(fields(r));
                                return item;
                            })
                            .toList());
            doc.put("next", next);
            print(doc);
        } else if (records.isEmpty()) {
            out.println("no stuck leases of consumer \"" + consumer + "\"");
        } else {
            out.printf("%-40s %-24s %s%n", "ID", "LEASE ENDED", "OWNER");
            for (RecordView r : records) {
                out.printf("%-40s %-24s %s%n", r.key().id(), r.expiresAt(), r.owner());
            }
            out.println(records.size() + " stuck lease" + (records.size() == 1 ? "" : "s")
                    + (next == null ? "" : "; more after \"" + next + "\" (--after, or --all)"));
        }
        out.flush();
    }

    void counts(String consumer, RecordCounts counts) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("consumer", consumer);
            doc.put("inProgress", counts.inProgress());
            doc.put("leaseEnded", counts.leaseEnded());
            doc.put("completed", counts.completed());
            doc.put("retentionEnded", counts.retentionEnded());
            doc.put("expired", counts.expired());
            doc.put("total", counts.total());
            print(doc);
        } else {
            out.println("records of consumer \"" + consumer + "\"");
            out.printf("  %-16s %d%n", "in progress", counts.inProgress());
            out.printf("  %-16s %d%n", "lease ended", counts.leaseEnded());
            out.printf("  %-16s %d%n", "completed", counts.completed());
            out.printf("  %-16s %d%n", "retention ended", counts.retentionEnded());
            out.printf("  %-16s %d%n", "expired", counts.expired());
            out.printf("  %-16s %d%n", "total", counts.total());
        }
        out.flush();
    }

    void changed(String what, InboxKey key, boolean changed, String otherwise) {
        if (json) {
            Map<String, Object> doc = keyOf(key);
            doc.put(what, changed);
            print(doc);
        } else {
            out.println(changed ? what + ": " + describe(key) : otherwise + " (" + describe(key) + ")");
        }
        out.flush();
    }

    void purge(@Nullable String consumer, long count, boolean dryRun) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            if (consumer != null) {
                doc.put("consumer", consumer);
            }
            doc.put(dryRun ? "wouldRemove" : "removed", count);
            print(doc);
        } else if (dryRun) {
            out.println("a purge would remove " + count + " record" + (count == 1 ? "" : "s") + " of consumer \""
                    + consumer + "\" (past expiry + grace)");
        } else {
            out.println("removed " + count + " record" + (count == 1 ? "" : "s")
                    + " (stores that expire records themselves, Redis and DynamoDB, remove none here)");
        }
        out.flush();
    }

    void note(String text) {
        if (!json) {
            out.println(text);
            out.flush();
        }
    }

    private static Map<String, Object> keyOf(InboxKey key) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("consumer", key.consumer());
        doc.put("id", key.id());
        return doc;
    }

    private static Map<String, Object> fields(RecordView view) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("state", view.state().name());
        fields.put("owner", view.owner());
        fields.put("expiresAt", view.expiresAt().toString());
        fields.put("purgeAfter", view.purgeAfter().toString());
        fields.put("fingerprint", view.fingerprint());
        fields.put("resultBytes", view.resultBytes());
        return fields;
    }

    private static String describe(InboxKey key) {
        return "\"" + key.id() + "\" of consumer \"" + key.consumer() + "\"";
    }

    private void print(Map<String, Object> doc) {
        try {
            out.println(JSON.writeValueAsString(doc));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
