package dev.inbox.http;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A request as the core sees it, whatever framework received it: what the fingerprint covers
 * (method, path, query, content type, body), the {@code Idempotency-Key} header's raw value, and
 * what a {@link IdempotencyScope} may read (the authenticated principal's name, any header).
 *
 * @param method the HTTP method, such as {@code POST}
 * @param path the request path, without the query
 * @param query the raw query string, or null
 * @param contentType the {@code Content-Type} header, or null
 * @param idempotencyKey the raw value of the key header, or null when the request has none
 * @param principal the authenticated principal's name, or null
 * @param headers a request header's first value by name (case-insensitive), or null
 * @param body the request body, read whole (within the core's {@link IdempotentRequests#maxBodyBytes()})
 */
public record IdempotentRequest(
        String method,
        String path,
        @Nullable String query,
        @Nullable String contentType,
        @Nullable String idempotencyKey,
        @Nullable String principal,
        Function<String, @Nullable String> headers,
        byte[] body) {

    /** @throws IllegalArgumentException if method, path, headers or body is null */
    public IdempotentRequest {
        if (method == null || path == null || headers == null || body == null) {
            throw new IllegalArgumentException("method, path, headers and body must not be null");
        }
    }

    /** The first value of request header {@code name}, or null. */
    public @Nullable String header(String name) {
        return headers.apply(name);
    }
}
