package dev.inbox.tck.adapter;

/**
 * The rules of the adapter kit. Every rule is verified by a test of {@link AdapterContract} whose
 * display name starts with its id, and shown to fail a deliberately broken adapter by a self-test
 * named {@code <id> catches …} in the kit's own build.
 *
 * <p>Verdicts: in transactional mode an event is never lost and never applied twice; in lease mode
 * never lost, and applied twice only for a cause of its own (none of these scenarios gives one).
 */
public enum AdapterRule {
    A1("Duplicate publishes and re-sends under one id are applied once each, and every delivery is"
            + " acknowledged: nothing is left to redeliver."),
    A2("Work that throws an Exception or a RuntimeException is retried after a back-off until it succeeds:"
            + " applied once, and the messages after it are neither lost nor applied twice; once applied, nothing is"
            + " left unacknowledged (a second consumer receives none of them again)."),
    A3("Work that throws an Error: nothing past it is acknowledged or committed and its claim is released, so"
            + " once the consumer goes on (or is started again) the event is applied once."),
    A4("A message without a key, whose key function throws, or whose id is over the key limit goes to the"
            + " dead-letter path, counted and never applied, and the messages after it are applied once."),
    A5("A store that fails at the claim, for at least 20 claim attempts and the kit's persistence time, holds the"
            + " messages back (never acknowledged, never applied without a claim, never given up on); once it is back"
            + " every event is applied once."),
    A6("A completion that keeps failing after the work ran is retried a bounded number of times and the message"
            + " is then acknowledged: the work is not applied again, and a consumer started after the first stops"
            + " receives none of the messages again."),
    A7("A consumer whose broker connection dies after the work but before its acknowledgement or commit (the"
            + " process lives on, so what it records in the store still happens): every event is applied"
            + " once; the redelivery is a DUPLICATE of work that was recorded, or applies again work whose transaction"
            + " the crash rolled back."),
    A8("A message whose event another delivery holds (BUSY), for at least 20 retries and the kit's persistence"
            + " time, is retried after a back-off and never acknowledged past: when the holder fails, the event is"
            + " applied once."),
    A9("A graceful stop finishes the message in hand and acknowledges it before closing: it is applied once and"
            + " never delivered again; the messages not yet begun are applied once by the next consumer."),
    A10("A poison message, whose work fails on every attempt (for at least 20 deliveries and the kit's persistence"
            + " time, unless the adapter dead-letters it first), is retried no faster than the back-off allows and never"
            + " acknowledged past: once its work succeeds it is applied once (or, where the adapter gives up after some"
            + " attempts, dead-lettered once), and the messages beside it are applied once."),
    A11("Work longer than the lease keeps the event, with a second consumer running meanwhile: another delivery"
            + " while it runs, of it, of a message claimed with it whose work has not begun, or of one whose work is"
            + " done but not yet recorded, finds the event held (BUSY) or already applied, never free; every event is"
            + " applied once."),
    A12("The broker connection cut while a message is in hand and then restored: the adapter (or the client or"
            + " container it runs on) comes back by itself, and the message in hand, a BUSY one after the cut (retried"
            + " at least 20 times over the kit's persistence time) and the ones after them are each applied once, with"
            + " nothing left to redeliver."),
    A13("The store failing once where the outcome is recorded — the commit of the work's transaction (transactional"
            + " mode), the claim's completion (lease mode): the event is applied once and ends recorded, so a re-send of"
            + " it later is a duplicate, not applied again."),
    A14("A consumer whose broker connection dies while the outcome is being recorded — at the claim's completion"
            + " (lease mode), at the commit of the work's transaction (transactional mode) — had acknowledged nothing"
            + " of that message: it is delivered again and found a duplicate, and every event is applied once.");

    private final String sentence;

    AdapterRule(String sentence) {
        this.sentence = sentence;
    }

    /** What the rule requires, in one sentence. */
    public String sentence() {
        return sentence;
    }
}
