package dev.inbox.spring.kafka;

import dev.inbox.InboxStoreException;
import dev.inbox.spring.InboxClaim;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Ends a claim from a container callback, where a thrown exception would only be logged by Spring
 * Kafka: logs it here, with what it means for the event.
 */
final class ClaimEnds {

    private static final Log log = LogFactory.getLog(ClaimEnds.class);

    private ClaimEnds() {}

    static void complete(InboxClaim claim) {
        try {
            if (!claim.complete()) {
                log.warn("the listener of " + claim.id() + " finished after its lease had ended and another delivery"
                        + " took the event over: it may be applied twice; lengthen the lease");
            }
        } catch (InboxStoreException e) {
            log.error(
                    "the listener of " + claim.id() + " ran, but its completion could not be recorded; a redelivery"
                            + " after the lease ends applies it again",
                    e);
        }
    }

    static void release(InboxClaim claim, @Nullable Throwable cause) {
        try {
            claim.release();
        } catch (RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
            log.warn("could not release the claim of " + claim.id() + "; its lease ends by itself", e);
        }
    }
}
