package dev.inbox.http;

import org.jspecify.annotations.Nullable;

/**
 * Whose keys a request's key is among. Two clients may both send key {@code "1"}: a scope keeps
 * them apart, so one never gets the other's stored response. There is no default: choose one when
 * building {@link IdempotentRequests} ({@link #principal()} behind authentication, {@link
 * #header(String)} for a tenant or API-key header, {@link #global()} only when every client draws
 * keys from one space, such as UUIDs minted by the client).
 */
@FunctionalInterface
public interface IdempotencyScope {

    /**
     * The scope of {@code request}, or null when it cannot be told — the request is then refused
     * (400) rather than put in a scope shared with others.
     */
    @Nullable
    String of(IdempotentRequest request);

    /** The authenticated principal's name; a request without one is refused. */
    static IdempotencyScope principal() {
        return request -> request.principal() == null ? null : "principal:" + request.principal();
    }

    /**
     * The value of request header {@code name} — a tenant or API-key header that the server trusts
     * (set or checked by a gateway or an earlier filter); a request without it is refused.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank
     */
    static IdempotencyScope header(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a header name is needed");
        }
        return request -> {
            String value = request.header(name);
            return value == null || value.isEmpty() ? null : "header:" + name + ":" + value;
        };
    }

    /** One scope for every client: only for keys no two clients can share (client-minted UUIDs). */
    static IdempotencyScope global() {
        return request -> "global";
    }

    /**
     * This scope narrowed to the request's method and path, so one key may be used once per route
     * (the draft leaves this open; Stripe's keys span routes, and a key reused on another route is
     * then a different request: 422).
     */
    default IdempotencyScope perRoute() {
        return request -> {
            String scope = of(request);
            return scope == null ? null : scope + "|" + request.method() + " " + request.path();
        };
    }
}
