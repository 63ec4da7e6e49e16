package dev.inbox.spring.kafka;

import dev.inbox.kafka.RecordKeys;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/**
 * A record from which the configured {@link RecordKeys} derive no valid dedup key: it must not be
 * applied (nothing would deduplicate it) and must not be skipped. {@link InboxKafka} makes it not
 * retryable: the error handler's recoverer (your dead-letter publisher) takes it at once, and the
 * error handler {@link InboxKafka} installs when you have none stops the container instead.
 */
public final class MissingKeyException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    MissingKeyException(ConsumerRecord<?, ?> record, @Nullable RuntimeException cause) {
        super(message(record, cause), cause);
    }

    private static String message(ConsumerRecord<?, ?> record, @Nullable RuntimeException cause) {
        List<String> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(header.key());
        }
        return "record " + record.topic() + "-" + record.partition() + "@" + record.offset()
                + (cause == null
                        ? " has no dedup key: it carries none of what the configured RecordKeys read"
                        : " has no valid dedup key: " + cause.getMessage())
                + " (its headers: " + headers + "). Set inbox.kafka.key-header (Spring Boot) or"
                + " RecordKeys.header(name) to the header your producer puts its event id in";
    }

    /**
     * The dedup id {@code keys} give {@code record}, checked as a key of {@code consumer}.
     *
     * @throws MissingKeyException if there is none, the key function threw, or the id is invalid
     */
    static String keyOf(RecordKeys keys, ConsumerRecord<?, ?> record, String consumer) {
        String id;
        try {
            id = keys.keyOf(record);
            if (id != null) {
                dev.inbox.InboxKey.of(consumer, id);
            }
        } catch (RuntimeException e) {
            throw new MissingKeyException(record, e);
        }
        if (id == null) {
            throw new MissingKeyException(record, null);
        }
        return id;
    }
}
