package dev.inbox.http;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.FingerprintCheck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Idempotency-Key} decisions, framework-neutral: a web framework's adapter (the Servlet
 * {@link IdempotencyFilter}) describes each request as an {@link IdempotentRequest}, asks {@link
 * #begin} what to do, and after the handler ran tells {@link #finish} (or {@link #abandon}) what it
 * answered.
 *
 * <p>{@link #begin} claims the key (scoped, see {@link IdempotencyScope}) in the inbox's store, with
 * the request's fingerprint (method, path, query and body; JSON by its canonical form):
 *
 * <ul>
 *   <li>a new key: {@link Proceed} — run the handler; the claim is renewed while it runs;
 *   <li>a key whose request finished: {@link Replay} of the kept response — the same status, body
 *       and replayed headers, plus {@code Idempotent-Replayed: true};
 *   <li>a key whose request is still running: 409 with {@code Retry-After} — or, with {@link
 *       Builder#waitWhileInFlight}, the answer once that request is done, if it is done within the
 *       wait ({@link #beginWaiting});
 *   <li>a key used before with a different request: 422;
 *   <li>a missing key (where keys are required), an invalid one, or no scope: 400; a body over
 *       {@link Builder#maxBodyBytes}: 413; a store that cannot answer: 503 with {@code Retry-After}
 *       (fail closed: the handler never runs unguarded) — unless {@link Builder#failOpen} was
 *       chosen: then {@link PassThrough}, the handler runs without a claim.
 * </ul>
 *
 * <p>{@link #finish} keeps what the handler answered, unless it is a 5xx (or a 4xx, with {@link
 * Builder#keepClientErrors(boolean) keepClientErrors(false)}): then the claim is released and the
 * next try runs the handler again. A handler that throws is {@link #abandon abandoned} the same way.
 *
 * <p>Lease mode: the claim and the handler's writes are not one transaction. A process that dies
 * after the handler's write and before {@link #finish} recorded the response leaves the claim to
 * expire after the inbox's lease, and a retry then runs the handler again. Transactional mode
 * ({@link Builder#transactional}) closes that window: the claim, the handler's writes and the kept
 * response are one database transaction.
 */
public final class IdempotentRequests {

    private static final System.Logger LOG = System.getLogger(IdempotentRequests.class.getName());
    private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(20).toNanos();
    private static final long MAX_PAUSE_NANOS = Duration.ofMillis(500).toNanos();

    /** The longest {@link Builder#waitWhileInFlight}: a request thread held longer is a mistake. */
    public static final Duration MAX_IN_FLIGHT_WAIT = Duration.ofMinutes(1);

    /** The header's name in the draft standard. */
    public static final String HEADER = "Idempotency-Key";

    /** The header a replayed response carries. */
    public static final String REPLAYED = "Idempotent-Replayed";

    private final Inbox inbox;
    private final IdempotencyScope scope;
    private final boolean keyRequired;
    private final Set<String> methods;
    private final int maxBodyBytes;
    private final int maxResponseBytes;
    private final boolean keepClientErrors;
    private final boolean failOpen;
    private final Duration retryAfter;
    private final Set<String> replayedHeaders;
    private final Duration inFlightWait;
    private final @Nullable RequestTransactions transactions;

    private IdempotentRequests(Builder b, IdempotencyScope scope) {
        this.inbox = b.inbox;
        this.scope = scope;
        this.keyRequired = b.keyRequired;
        this.methods = Set.copyOf(b.methods);
        this.maxBodyBytes = b.maxBodyBytes;
        this.maxResponseBytes = b.inbox.store().maxResultBytes();
        this.keepClientErrors = b.keepClientErrors;
        this.retryAfter = b.retryAfter;
        this.failOpen = b.failOpen;
        this.replayedHeaders = Set.copyOf(b.replayedHeaders);
        this.inFlightWait = b.inFlightWait;
        this.transactions = b.transactions;
    }

    /**
     * A builder over {@code inbox}, whose store must keep results ({@link
     * dev.inbox.spi.InboxStore#maxResultBytes()}; every store here does).
     *
     * @throws IllegalArgumentException if {@code inbox} is null
     * @throws UnsupportedOperationException if its store keeps no results
     */
    public static Builder builder(Inbox inbox) {
        requireNonNull(inbox, "inbox");
        if (inbox.store().maxResultBytes() <= 0) {
            throw new UnsupportedOperationException(inbox.store() + " keeps no results, which replays need");
        }
        return new Builder(inbox);
    }

    /** The longest request body read for the fingerprint; a longer one is refused with 413. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** The 413 for a body over {@link #maxBodyBytes()}, which an adapter may answer before reading it. */
    public Refuse bodyTooLarge() {
        return new Refuse(
                413, "The request body is over the " + maxBodyBytes + " bytes read for an " + HEADER + ".", null);
    }

    /** True when requests of {@code method} are guarded (by default POST and PATCH). */
    public boolean guards(String method) {
        return methods.contains(method.toUpperCase(Locale.ROOT));
    }

    /** What to do with {@code request}: claims its key when it has one. */
    public Decision begin(IdempotentRequest request) {
        if (request.idempotencyKey() == null) {
            return keyRequired
                    ? new Refuse(400, "This request needs an " + HEADER + " header.", null)
                    : new PassThrough();
        }
        String key;
        try {
            key = IdempotencyKeyHeader.parse(request.idempotencyKey());
        } catch (IllegalArgumentException invalid) {
            return new Refuse(400, capitalized(invalid.getMessage()) + ".", null);
        }
        if (request.body().length > maxBodyBytes) {
            return bodyTooLarge();
        }
        String within = scope.of(request);
        if (within == null) {
            return new Refuse(
                    400,
                    "The " + HEADER + " cannot be scoped: this request lacks what the server's scope reads"
                            + " (an authenticated principal or a header).",
                    null);
        }
        // The scope's length first: a key may hold any character, so "a|b" + "c" must not meet "a" + "b|c".
        String scoped = within.length() <= 200 ? within : DedupKeys.sha256(within);
        String id = "http:" + scoped.length() + ":" + scoped + "|" + key;
        String fingerprint = RequestFingerprint.of(request);
        return transactions == null ? beginLeased(id, fingerprint) : beginInTransaction(id, fingerprint, transactions);
    }

    private Decision beginLeased(String id, String fingerprint) {
        Claim claim;
        try {
            claim = inbox.claims().claim(id, fingerprint);
        } catch (InboxStoreException down) {
            return storeDown(down);
        }
        if (claim.status() == ClaimStatus.ACQUIRED) {
            claim.keepRenewed();
            return new Proceed(new Hold.Leased(claim));
        }
        return answer(claim.result());
    }

    private Decision beginInTransaction(String id, String fingerprint, RequestTransactions transactions) {
        InboxKey key = InboxKey.of(inbox.consumer(), id);
        RequestTransaction transaction;
        try {
            transaction = transactions.begin();
        } catch (InboxStoreException down) {
            return storeDown(down);
        }
        ClaimResult claim;
        try {
            claim = transaction.claim(key, inbox.retention(), fingerprint);
        } catch (InboxStoreException down) {
            transaction.rollback();
            return storeDown(down);
        } catch (RuntimeException | Error failure) {
            transaction.rollback();
            throw failure;
        }
        if (claim.status() == ClaimStatus.ACQUIRED) {
            return new Proceed(new Hold.InTransaction(transaction, key));
        }
        transaction.rollback(); // nothing was written
        return answer(claim);
    }

    private Decision storeDown(InboxStoreException down) {
        if (failOpen) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "idempotency store unavailable, running the request UNGUARDED (failOpen): " + down.getMessage());
            return new PassThrough();
        }
        LOG.log(System.Logger.Level.WARNING, "idempotency store unavailable, answering 503: " + down.getMessage());
        return new Refuse(503, "The idempotency store cannot answer; retry later with the same key.", retryAfter);
    }

    /** Whether a request runs unguarded when the store cannot answer ({@link Builder#failOpen}). */
    public boolean failsOpen() {
        return failOpen;
    }

    /** What a claim that was not acquired answers: 409 in flight, 422 another request, else the replay. */
    private Decision answer(ClaimResult claim) {
        if (claim.status() == ClaimStatus.BUSY) {
            return new Refuse(409, "A request with this " + HEADER + " is still being processed.", retryAfter);
        }
        if (claim.fingerprint() == FingerprintCheck.MISMATCH) {
            return new Refuse(
                    422, "This " + HEADER + " was used with a different request (method, path, query or body).", null);
        }
        byte[] stored = claim.storedResult();
        if (stored == null) {
            return new Refuse(
                    500, "The request with this " + HEADER + " was processed, but no response was kept.", null);
        }
        return new Replay(StoredResponse.decode(stored));
    }

    /**
     * {@link #begin}, waiting for a request whose key is in flight: while {@code begin} answers 409
     * (the key's request still running) and {@link Builder#waitWhileInFlight} has not passed, the
     * key is claimed again after a pause ({@link #pauseBeforeAgain}), so a client's quick retry gets
     * the first request's response rather than a 409. Blocks the calling thread for at most that
     * wait (plus one claim); an interrupt ends the wait with the 409. With no wait configured (the
     * default) it is {@code begin}.
     */
    public Decision beginWaiting(IdempotentRequest request) {
        long start = System.nanoTime();
        Decision decision = begin(request);
        for (int attempt = 0; ; attempt++) {
            Duration pause = pauseBeforeAgain(decision, start, attempt);
            if (pause == null) {
                return decision;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(pause.toNanos());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return decision;
            }
            decision = begin(request);
        }
    }

    /**
     * For adapters that wait without blocking a thread (WebFlux): how long to pause before claiming
     * again after {@code decision}, the {@code attempt}-th (from 0) of a request first begun at
     * {@code startNanos} ({@link System#nanoTime()}) — or null when {@code decision} is the answer:
     * it is not a 409 of a key in flight, no wait is configured, or the wait has passed. Pauses grow
     * from 20 ms to 500 ms, each jittered down by up to half, and never past the wait.
     */
    public @Nullable Duration pauseBeforeAgain(Decision decision, long startNanos, int attempt) {
        if (!(decision instanceof Refuse refusal) || refusal.status() != 409 || inFlightWait.isZero()) {
            return null;
        }
        long left = inFlightWait.toNanos() - (System.nanoTime() - startNanos);
        if (left <= 0) {
            return null;
        }
        long step = Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << Math.min(Math.max(attempt, 0), 5));
        long jittered = step - ThreadLocalRandom.current().nextLong(step / 2 + 1);
        return Duration.ofNanos(Math.max(1, Math.min(jittered, left)));
    }

    /**
     * Records what the handler of a {@link Proceed} answered: kept for replays, or released when it
     * is a server error (or a client error, without {@link Builder#keepClientErrors}). Never throws
     * for the store: the handler has run, and in lease mode its answer must reach the client
     * whatever the store says (a failure is logged; the claim's lease then runs out and a retry runs
     * the handler again). In transactional mode this commits the request's transaction; a commit
     * that fails is {@link Finished#NOT_COMMITTED}, and the client must get {@link #notCommitted()}
     * instead of the handler's answer.
     *
     * @return what became of it
     */
    public Finished finish(Proceed proceed, StoredResponse response) {
        if (released(proceed, response.status())) {
            return Finished.RELEASED;
        }
        byte[] kept = response.keeping(replayedHeaders).encode();
        return kept.length > maxResponseBytes
                ? finishUnkept(proceed, response.status(), kept.length)
                : record(proceed, kept, Finished.KEPT);
    }

    /**
     * {@link #finish} for a response too long to keep, which the adapter streamed to the client
     * instead of holding it whole: the key is done (repeats are answered 500, saying the response was
     * not kept), unless {@code status} is one that releases.
     *
     * @param length the response's length so far, for the log and the repeats' message
     */
    public Finished finishUnkept(Proceed proceed, int status, long length) {
        if (released(proceed, status)) {
            return Finished.RELEASED;
        }
        LOG.log(
                System.Logger.Level.WARNING,
                "the response to " + proceed.hold().id() + " is " + length + " bytes or more, over the "
                        + maxResponseBytes + " the store keeps: its repeats will be answered 500, not replayed");
        return record(proceed, notKept(length).encode(), Finished.NOT_KEPT);
    }

    /** The longest response kept for replays, in bytes (the store's {@code maxResultBytes()}). */
    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /**
     * Releases the claim of a {@link Proceed} whose response is not to be kept (the adapter could
     * not capture it, such as a container's error page): the next try runs the handler again.
     */
    public void release(Proceed proceed) {
        proceed.hold().release();
    }

    private boolean released(Proceed proceed, int status) {
        if (status >= 500 || (status >= 400 && !keepClientErrors)) {
            proceed.hold().release();
            return true;
        }
        return false;
    }

    private Finished record(Proceed proceed, byte[] kept, Finished finished) {
        return proceed.hold().keep(kept, finished);
    }

    /**
     * Releases the claim of a {@link Proceed} whose handler threw (transactional mode: rolls its
     * transaction back); a store failure is added to {@code failure}.
     */
    public void abandon(Proceed proceed, Throwable failure) {
        proceed.hold().abandon(failure);
    }

    /** Whether claims join the request's transaction ({@link Builder#transactional}). */
    public boolean transactional() {
        return transactions != null;
    }

    /**
     * The answer in place of the handler's when {@link #finish} says {@link Finished#NOT_COMMITTED}:
     * 503, retry with the same key — a retry gets the response if the transaction did commit, or
     * runs the handler if it did not.
     */
    public Refuse notCommitted() {
        return new Refuse(
                503,
                "The outcome of this request could not be recorded; retry with the same " + HEADER
                        + ": it is answered with the response if the request took effect, or run if it did not.",
                retryAfter);
    }

    private StoredResponse notKept(long length) {
        return new StoredResponse(
                500,
                List.of(new StoredResponse.Header("Content-Type", "text/plain;charset=UTF-8")),
                ("The request with this " + HEADER + " was processed; its response (" + length + " bytes) was over the "
                                + maxResponseBytes + " bytes kept for repeats.")
                        .getBytes(StandardCharsets.UTF_8));
    }

    private static String capitalized(String message) {
        return Character.toUpperCase(message.charAt(0)) + message.substring(1);
    }

    @Override
    public String toString() {
        return "IdempotentRequests[" + inbox.consumer() + ", methods " + methods + "]";
    }

    /** What {@link #begin} decided. */
    public sealed interface Decision permits Proceed, Replay, Refuse, PassThrough {}

    /**
     * Run the handler, then {@link #finish} with its response (or {@link #abandon} if it threw). In
     * lease mode the key's claim is renewed until then; in transactional mode the request's
     * transaction is open on this thread, for the handler to join.
     */
    public static final class Proceed implements Decision {
        private final Hold hold;

        Proceed(Hold hold) {
            this.hold = hold;
        }

        Hold hold() {
            return hold;
        }

        /** The key's scoped id in the store. */
        public String id() {
            return hold.id();
        }

        @Override
        public String toString() {
            return "Proceed[" + hold.id() + "]";
        }
    }

    /**
     * Answer with the kept response and {@code Idempotent-Replayed: true}; the handler does not run.
     *
     * @param response the kept response
     */
    public record Replay(StoredResponse response) implements Decision {}

    /**
     * Answer {@code status} with an RFC 9457 problem ({@link #problemJson()}); the handler does not run.
     *
     * @param status 400, 409, 413, 422, 500 or 503
     * @param detail the sentence for the client
     * @param retryAfter the {@code Retry-After} to send (409, 503), or null
     */
    public record Refuse(
            int status, String detail, @Nullable Duration retryAfter) implements Decision {

        /** The {@code application/problem+json} body. */
        public byte[] problemJson() {
            return ("{\"type\":\"about:blank\",\"status\":" + status + ",\"detail\":\"" + escaped(detail) + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
        }

        /** {@link #retryAfter()} in whole seconds, at least 1. */
        public long retryAfterSeconds() {
            return retryAfter == null ? 0 : Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        }

        private static String escaped(String text) {
            StringBuilder out = new StringBuilder(text.length());
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }
    }

    /**
     * Run the handler unguarded: the request has no key and keys are optional, or the store cannot
     * answer and {@link Builder#failOpen} was chosen.
     */
    public record PassThrough() implements Decision {}

    /** What {@link #finish} did with a handler's response. */
    public enum Finished {
        /** Kept: repeats are answered with it. */
        KEPT,
        /** Too long to keep: the key is done, and repeats are answered 500 saying so. */
        NOT_KEPT,
        /** A server error (or an unkept client error): released, the next try runs the handler. */
        RELEASED,
        /** The claim had expired and may have been taken over: nothing kept. */
        LEASE_LOST,
        /** The store failed: nothing kept, the claim's lease runs out. */
        NOT_RECORDED,
        /**
         * Transactional mode: the transaction was rolled back, or its commit failed with an unknown
         * outcome — the handler's writes may not have happened. Answer {@link #notCommitted()}, not
         * the handler's response.
         */
        NOT_COMMITTED
    }

    /** Settings of {@link IdempotentRequests}; {@link #scope} is required. */
    public static final class Builder {
        private final Inbox inbox;
        private @Nullable IdempotencyScope scope;
        private boolean keyRequired = true;
        private Set<String> methods = Set.of("POST", "PATCH");
        private int maxBodyBytes = 1 << 20;
        private boolean keepClientErrors = true;
        private boolean failOpen = false;
        private Duration retryAfter = Duration.ofSeconds(1);
        private Set<String> replayedHeaders = StoredResponse.DEFAULT_REPLAYED_HEADERS;
        private Duration inFlightWait = Duration.ZERO;
        private @Nullable RequestTransactions transactions;

        private Builder(Inbox inbox) {
            this.inbox = inbox;
        }

        /**
         * Whose keys a request's key is among (required: there is no default that could let two
         * clients meet under one key).
         */
        public Builder scope(IdempotencyScope scope) {
            this.scope = requireNonNull(scope, "scope");
            return this;
        }

        /** Whether a guarded request without a key is refused with 400 (default) or runs unguarded. */
        public Builder keyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
            return this;
        }

        /** The methods guarded; default POST and PATCH (the others are idempotent by definition). */
        public Builder methods(String... methods) {
            Set<String> upper = new LinkedHashSet<>();
            for (String method : requireNonNull(methods, "methods")) {
                upper.add(requireNonNull(method, "a method").toUpperCase(Locale.ROOT));
            }
            if (upper.isEmpty()) {
                throw new IllegalArgumentException("at least one method must be guarded");
            }
            this.methods = upper;
            return this;
        }

        /** The longest request body read for the fingerprint (default 1 MiB); longer ones get 413. */
        public Builder maxBodyBytes(int maxBodyBytes) {
            if (maxBodyBytes < 0) {
                throw new IllegalArgumentException("maxBodyBytes must not be negative but was " + maxBodyBytes);
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** Whether a 4xx from the handler is kept and replayed (default) or released like a 5xx. */
        public Builder keepClientErrors(boolean keepClientErrors) {
            this.keepClientErrors = keepClientErrors;
            return this;
        }

        /**
         * What a request gets when the store cannot answer (down, unreachable, timing out): by default
         * (false) a 503 with {@code Retry-After} — fail closed, the handler never runs unguarded. True
         * runs the handler without a claim instead ({@link PassThrough}): the request is served while
         * the store is down, but nothing guards it — a retry with the same key runs the handler again,
         * and its response is not kept. Each such request is logged at {@code WARNING}. Choose it only
         * where serving matters more than running a request twice.
         */
        public Builder failOpen(boolean failOpen) {
            this.failOpen = failOpen;
            return this;
        }

        /** The {@code Retry-After} of a 409 (key in flight) or 503 (store down); default 1 s. */
        public Builder retryAfter(Duration retryAfter) {
            if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
                throw new IllegalArgumentException("retryAfter must be positive but was " + retryAfter);
            }
            this.retryAfter = retryAfter;
            return this;
        }

        /**
         * Transactional mode: each request's key is claimed in a transaction that {@code
         * transactions} opens on the request's thread, the handler's writes join it, and its
         * response is kept in it before it commits — the effect and the kept response commit
         * together or not at all, so a process that dies between the two leaves neither and a
         * retry runs the handler once. What releases a key in lease mode — a 5xx, a thrown
         * handler, a 4xx without {@link #keepClientErrors} — rolls the transaction back here, the
         * handler's writes with it. A concurrent request with the same key waits for the
         * transaction in the database (bounded by its lock timeout), then gets the replay. The
         * inbox's store must be the database's ({@code TransactionalInboxStore}); only the Servlet
         * filter supports it (the handler runs on the request's thread).
         *
         * @throws IllegalArgumentException if {@code transactions} is null
         */
        public Builder transactional(RequestTransactions transactions) {
            this.transactions = requireNonNull(transactions, "transactions");
            return this;
        }

        /**
         * How long a request whose key is still in flight waits for that request to finish, then
         * gets its response (a replay) — or, if it is still running when the wait has passed, the
         * 409. Default zero: 409 at once. The Servlet filter waits on the request's thread; the
         * WebFlux filter without holding one.
         *
         * @throws IllegalArgumentException if {@code wait} is null, negative or over {@link
         *     #MAX_IN_FLIGHT_WAIT}
         */
        public Builder waitWhileInFlight(Duration wait) {
            if (wait == null || wait.isNegative() || wait.compareTo(MAX_IN_FLIGHT_WAIT) > 0) {
                throw new IllegalArgumentException(
                        "waitWhileInFlight must be from zero to " + MAX_IN_FLIGHT_WAIT + " but was " + wait);
            }
            this.inFlightWait = wait;
            return this;
        }

        /**
         * The response headers a replay carries (case-insensitive); default {@link
         * StoredResponse#DEFAULT_REPLAYED_HEADERS}. Never add {@code Set-Cookie}: a replay would hand
         * one client's session to whoever repeats the key.
         */
        public Builder replayedHeaders(Set<String> names) {
            Set<String> lower = new LinkedHashSet<>();
            for (String name : requireNonNull(names, "names")) {
                String header = requireNonNull(name, "a header name").toLowerCase(Locale.ROOT);
                if (header.equals("set-cookie")) {
                    throw new IllegalArgumentException("Set-Cookie is never replayed");
                }
                lower.add(header);
            }
            this.replayedHeaders = lower;
            return this;
        }

        /**
         * The configured core.
         *
         * @throws IllegalStateException if no {@link #scope} was chosen
         */
        public IdempotentRequests build() {
            if (scope == null) {
                throw new IllegalStateException("choose a scope: IdempotencyScope.principal(), .header(name) or,"
                        + " for keys no two clients share, .global()");
            }
            return new IdempotentRequests(this, scope);
        }
    }
}
