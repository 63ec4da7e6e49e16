package dev.inbox;

import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxArguments;

/**
 * What {@link Inbox#handle} did, with the details an operator wants to hear about.
 *
 * @param outcome processed, duplicate or busy
 * @param claim the store's answer to the claim
 * @param leaseLost for {@link HandleOutcome#PROCESSED}: the work ran, but the lease had expired and
 *     been taken over before it finished (or a renewal of {@link Inbox#handleRenewing} was refused),
 *     so another delivery may apply the event again (make the lease longer than the slowest
 *     processing, or renew it)
 */
public record HandleResult(HandleOutcome outcome, ClaimResult claim, boolean leaseLost) {

    /** Checks the arguments. */
    public HandleResult {
        InboxArguments.requireNonNull(outcome, "outcome");
        InboxArguments.requireNonNull(claim, "claim");
    }

    /** True when this duplicate was found past its retention: the dedup window is undersized. */
    public boolean isLateDuplicate() {
        return outcome == HandleOutcome.DUPLICATE && claim.isLate();
    }

    /**
     * True when this duplicate carried a different payload from the one applied: two different
     * events share one dedup key, which is a key-derivation bug.
     */
    public boolean isFingerprintMismatch() {
        return claim.fingerprint() == FingerprintCheck.MISMATCH;
    }

    /** True when the message may be acknowledged (processed or duplicate), false when busy. */
    public boolean shouldAcknowledge() {
        return outcome != HandleOutcome.BUSY;
    }
}
