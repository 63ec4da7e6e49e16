package dev.inbox.http;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The response kept for a key and replayed to every repeat of its request: the status, the headers
 * a replay may carry (see {@link IdempotentRequests.Builder#replayedHeaders}) and the body, byte for
 * byte.
 *
 * @param status the HTTP status code
 * @param headers name and value pairs, in the order the handler set them (a name may repeat)
 * @param body the response body
 */
public record StoredResponse(int status, List<Header> headers, byte[] body) {

    /** The headers a replay carries unless configured otherwise. Never {@code Set-Cookie}, {@code Date} or rate limits. */
    public static final Set<String> DEFAULT_REPLAYED_HEADERS =
            Set.of("content-type", "content-language", "location", "content-location", "etag", "last-modified", "link");

    private static final int FORMAT = 1;

    /** One header of a stored response. */
    public record Header(String name, String value) {
        /** @throws IllegalArgumentException if either is null */
        public Header {
            if (name == null || value == null) {
                throw new IllegalArgumentException("a header's name and value must not be null");
            }
        }
    }

    /** @throws IllegalArgumentException if the status is not 100–599 or a part is null */
    public StoredResponse {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status must be 100–599 but was " + status);
        }
        if (headers == null || body == null) {
            throw new IllegalArgumentException("headers and body must not be null");
        }
        headers = List.copyOf(headers);
    }

    /** The first value of header {@code name} (case-insensitive), or null. */
    public @Nullable String header(String name) {
        for (Header header : headers) {
            if (header.name().equalsIgnoreCase(name)) {
                return header.value();
            }
        }
        return null;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredResponse that
                && status == that.status
                && headers.equals(that.headers)
                && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        return "StoredResponse[" + status + ", " + headers + ", " + body.length + " bytes]";
    }

    /** Only the headers whose names {@code replayed} holds (lower case). */
    StoredResponse keeping(Set<String> replayed) {
        List<Header> kept = new ArrayList<>();
        for (Header header : headers) {
            if (replayed.contains(header.name().toLowerCase(Locale.ROOT))) {
                kept.add(header);
            }
        }
        return new StoredResponse(status, kept, body);
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64 * headers.size() + 16);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeShort(status);
            out.writeShort(headers.size());
            for (Header header : headers) {
                out.writeUTF(header.name());
                out.writeUTF(header.value());
            }
            out.writeInt(body.length);
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static StoredResponse decode(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(stored))) {
            int format = in.readUnsignedByte();
            if (format != FORMAT) {
                throw new IllegalStateException("a stored response of format " + format + ", which this version cannot"
                        + " read (it reads format " + FORMAT + ")");
            }
            int status = in.readUnsignedShort();
            int count = in.readUnsignedShort();
            List<Header> headers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                headers.add(new Header(in.readUTF(), in.readUTF()));
            }
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            return new StoredResponse(status, headers, body);
        } catch (IOException e) {
            throw new IllegalStateException("a stored response that cannot be read: " + e.getMessage(), e);
        }
    }
}
