package dev.inbox.tck.http;

/**
 * The rules of the HTTP kit. Every rule is verified by a test of {@link HttpContract} whose display
 * name starts with its id, and shown to fail a deliberately broken integration by a self-test named
 * {@code <id> catches …} in the kit's own build.
 *
 * <p>W1–W7 ({@link HttpContract}) hold in every mode while the server's process lives. W8 ({@link
 * TransactionalHttpContract}) is transactional mode's: a process that dies between the handler and
 * the kept response. Lease mode cannot keep it: the handler's writes are committed before the
 * response is.
 */
public enum HttpRule {
    W1("A repeat of a finished request gets the first response again: its status, its body byte for byte, its"
            + " Content-Type and Location, marked Idempotent-Replayed: true, never its Set-Cookie or headers outside"
            + " the allow-list; the handler ran once."),
    W2("Concurrent requests with one key run the handler once: every other one gets 409 with Retry-After while"
            + " it runs, or the first response replayed."),
    W3("A key is bound to its request: the same JSON body serialized another way (member order, whitespace,"
            + " number form) is the same request and replayed; another body or another query under the key is 422,"
            + " and the handler does not run."),
    W4("Only what the handler produced is kept: a 2xx and a 4xx it answered are replayed; a 5xx, or a handler that"
            + " throws, releases the key, and the retry runs the handler."),
    W5("Keys are scoped: two principals' identical keys never meet, each runs the handler once; a request the"
            + " scope cannot place is 400, and the handler does not run."),
    W6("A missing key on a route that requires one, an empty key, one over 255 characters or two key headers is"
            + " 400 before the handler."),
    W7("A request body over the read limit is 413 before the handler: never passed through unguarded."),
    W8("In transactional mode, a request whose database connection dies after the handler and before its"
            + " response is kept commits nothing: none of the handler's writes, and the key is free; the retry runs"
            + " the handler, its writes are there once, and a repeat gets the retry's response.");

    private final String sentence;

    HttpRule(String sentence) {
        this.sentence = sentence;
    }

    /** What the rule requires, in one sentence. */
    public String sentence() {
        return sentence;
    }
}
