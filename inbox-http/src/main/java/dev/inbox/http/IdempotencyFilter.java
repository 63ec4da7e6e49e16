package dev.inbox.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A Jakarta Servlet (6.0+) filter that makes the routes it is mapped to safe to retry with an
 * {@code Idempotency-Key} header: a repeat of a key's request gets the first response back, marked
 * {@code Idempotent-Replayed: true}, instead of running the handler again (lease mode: see {@link
 * IdempotentRequests} for the one window where it does). The decisions are {@link
 * IdempotentRequests}'; this class reads the request and holds the response back for them.
 *
 * <pre>{@code
 * IdempotentRequests requests = IdempotentRequests.builder(inbox)
 *         .scope(IdempotencyScope.principal())
 *         .build();
 * servletContext.addFilter("idempotency", new IdempotencyFilter(requests))
 *         .addMappingForUrlPatterns(null, true, "/payments/*");
 * }</pre>
 *
 * <p>Map it after authentication, so that a request refused there (401, 403, 429) never reaches a
 * claim, and a {@linkplain IdempotencyScope#principal() principal scope} sees the principal. Only
 * the guarded methods (POST and PATCH by default) are looked at.
 *
 * <p>The request body is read once, up to {@link IdempotentRequests#maxBodyBytes()}, and served
 * again to the handler (forms too). Multipart bodies are refused (415): their parts cannot be
 * fingerprinted before the handler reads them. The response is held until the handler is done —
 * nothing reaches the client earlier — except a body over the store's result limit, which is
 * streamed and not kept. A response sent with {@code sendError} goes to the container's error page
 * and is not kept (the claim is released). The filter does not support asynchronous requests: do
 * not register it with {@code asyncSupported}, and a handler that starts one fails there.
 *
 * <p>In transactional mode ({@link IdempotentRequests.Builder#transactional}) the request's
 * transaction is opened before the claim, on the request's thread, and committed after the handler
 * with its response kept in it; only then is the response sent. A commit that fails is answered
 * 503 instead of the handler's response (retry with the same key). A response over the store's
 * result limit is streamed before the commit, so its client may see it and the commit fail.
 *
 * <p>A request whose key is still in flight is answered 409 at once, or, with {@link
 * IdempotentRequests.Builder#waitWhileInFlight}, waits on its thread (within that bound) for the
 * first request's response.
 *
 * <p>A request is guarded once however many times the filter is on its way (two registrations whose
 * patterns overlap, a forward): the first pass marks it, and later passes let it through.
 */
public final class IdempotencyFilter implements Filter {

    /** The request attribute that marks a request this filter has taken on. */
    static final String GUARDED = IdempotencyFilter.class.getName() + ".GUARDED";

    private final IdempotentRequests requests;
    private final Predicate<? super HttpServletRequest> routes;

    /**
     * A filter making the decisions of {@code requests} for every request it is mapped to.
     *
     * @throws IllegalArgumentException if {@code requests} is null
     */
    public IdempotencyFilter(IdempotentRequests requests) {
        this(requests, request -> true);
    }

    /**
     * A filter making the decisions of {@code requests} for the requests it is mapped to that
     * {@code routes} accepts (a framework's per-handler marker, say); the others pass through
     * unguarded. {@code routes} is asked only for the guarded methods, before the body is read.
     *
     * @throws IllegalArgumentException if {@code requests} or {@code routes} is null
     */
    public IdempotencyFilter(IdempotentRequests requests, Predicate<? super HttpServletRequest> routes) {
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        if (routes == null) {
            throw new IllegalArgumentException("routes must not be null");
        }
        this.requests = requests;
        this.routes = routes;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request)
                || !(res instanceof HttpServletResponse response)
                || !requests.guards(request.getMethod())
                || request.getAttribute(GUARDED) != null
                || !routes.test(request)) {
            chain.doFilter(req, res);
            return;
        }
        request.setAttribute(GUARDED, Boolean.TRUE);
        List<String> keys = Collections.list(request.getHeaders(IdempotentRequests.HEADER));
        if (keys.size() > 1) {
            refuse(
                    response,
                    new IdempotentRequests.Refuse(400, "Send one " + IdempotentRequests.HEADER + " header.", null));
            return;
        }
        @Nullable String key = keys.isEmpty() ? null : keys.get(0);
        HttpServletRequest handled = request;
        byte[] body = new byte[0];
        if (key != null) {
            if (isMultipart(request.getContentType())) {
                refuse(
                        response,
                        new IdempotentRequests.Refuse(
                                415,
                                "Multipart bodies cannot be sent with an " + IdempotentRequests.HEADER + ".",
                                null));
                return;
            }
            if (request.getContentLengthLong() > requests.maxBodyBytes()) {
                refuse(response, requests.bodyTooLarge());
                return;
            }
            body = request.getInputStream().readNBytes(requests.maxBodyBytes() + 1);
            handled = new CachedBodyRequest(request, body);
        }
        IdempotentRequests.Decision decision = requests.beginWaiting(describe(handled, key, body));
        if (decision instanceof IdempotentRequests.Proceed proceed) {
            run(proceed, handled, response, chain);
        } else if (decision instanceof IdempotentRequests.Replay replay) {
            replay(response, replay.response());
        } else if (decision instanceof IdempotentRequests.Refuse refusal) {
            refuse(response, refusal);
        } else {
            chain.doFilter(handled, response);
        }
    }

    private void run(
            IdempotentRequests.Proceed proceed,
            HttpServletRequest request,
            HttpServletResponse response,
            FilterChain chain)
            throws IOException, ServletException {
        CapturingResponse capture = new CapturingResponse(response, requests.maxResponseBytes());
        try {
            chain.doFilter(request, capture);
        } catch (IOException | ServletException | RuntimeException | Error failure) {
            requests.abandon(proceed, failure);
            throw failure;
        }
        if (request.isAsyncStarted()) {
            requests.release(proceed);
            throw new ServletException("an Idempotency-Key route started an asynchronous request, which the filter"
                    + " cannot hold back: register the filter without asyncSupported");
        }
        IdempotentRequests.Finished finished;
        try {
            finished = finish(proceed, capture);
        } catch (RuntimeException | Error failure) {
            // Never leave a claim held, or a request's transaction bound to this pooled thread.
            requests.abandon(proceed, failure);
            throw failure;
        }
        if (finished == IdempotentRequests.Finished.NOT_COMMITTED && !capture.overflowed()) {
            refuse(
                    response,
                    requests.notCommitted()); // the handler's answer claims an effect that may not have happened
        } else {
            capture.send();
        }
    }

    private IdempotentRequests.Finished finish(IdempotentRequests.Proceed proceed, CapturingResponse capture) {
        if (capture.errorSent()) {
            requests.release(proceed);
            return IdempotentRequests.Finished.RELEASED;
        }
        return capture.overflowed()
                ? requests.finishUnkept(proceed, capture.getStatus(), capture.length())
                : requests.finish(proceed, capture.captured());
    }

    private static IdempotentRequest describe(HttpServletRequest request, @Nullable String key, byte[] body) {
        Principal principal = request.getUserPrincipal();
        return new IdempotentRequest(
                request.getMethod(),
                request.getRequestURI(),
                request.getQueryString(),
                request.getContentType(),
                key,
                principal == null ? null : principal.getName(),
                request::getHeader,
                body);
    }

    private static void replay(HttpServletResponse response, StoredResponse stored) throws IOException {
        response.setStatus(stored.status());
        for (StoredResponse.Header header : stored.headers()) {
            if (header.name().equalsIgnoreCase("Content-Type")) {
                response.setContentType(header.value());
            } else {
                response.addHeader(header.name(), header.value());
            }
        }
        response.setHeader(IdempotentRequests.REPLAYED, "true");
        response.setContentLength(stored.body().length);
        response.getOutputStream().write(stored.body());
    }

    private static void refuse(HttpServletResponse response, IdempotentRequests.Refuse refusal) throws IOException {
        byte[] problem = refusal.problemJson();
        response.setStatus(refusal.status());
        response.setContentType("application/problem+json");
        if (refusal.retryAfter() != null) {
            response.setHeader("Retry-After", Long.toString(refusal.retryAfterSeconds()));
        }
        response.setContentLength(problem.length);
        response.getOutputStream().write(problem);
    }

    private static boolean isMultipart(@Nullable String contentType) {
        return contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("multipart/");
    }

    @Override
    public String toString() {
        return "IdempotencyFilter[" + requests + "]";
    }
}
