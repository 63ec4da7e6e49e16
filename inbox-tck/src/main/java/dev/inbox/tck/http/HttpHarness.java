package dev.inbox.tck.http;

import java.net.URI;

/**
 * What an {@code Idempotency-Key} integration's test supplies to {@link HttpContract}: a real HTTP
 * server of its own that runs the integration in front of the kit's handler.
 *
 * <p>The server must be wired like this:
 *
 * <ul>
 *   <li>every {@code POST} under {@value HttpKit#PATH_PREFIX} goes through the integration to
 *       {@link HttpKit#respond(String, String)} with the request's path and raw query, and answers
 *       what it returns — its status, headers and body; a {@link HttpKit.HandlerFailure} it throws
 *       propagates as the framework propagates any handler exception (a 5xx);
 *   <li>the integration requires a key on those routes (header {@value HttpKit#KEY_HEADER}), scopes
 *       keys by the {@value HttpKit#PRINCIPAL_HEADER} header (a request without it cannot be
 *       scoped), reads at most {@value HttpKit#MAX_BODY_BYTES} bytes of a body for the fingerprint,
 *       and otherwise keeps its defaults (a handler's 4xx kept, its 5xx released);
 *   <li>its inbox runs on the store under test, for a consumer of this harness's own.
 * </ul>
 */
public interface HttpHarness extends AutoCloseable {

    /** The server's base, without a trailing slash: {@code base + "/kit/…"} reaches the kit's handler. */
    URI base();

    /** Stops the server and closes what the harness opened. */
    @Override
    void close() throws Exception;
}
