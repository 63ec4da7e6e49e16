package dev.inbox.tck;

import java.time.Duration;
import java.util.UUID;

/** What every contract class needs: a consumer of each test's own, and waiting for time to pass. */
final class TckSupport {

    private TckSupport() {}

    /** A consumer name no other test uses, so tests never see each other's records. */
    static String freshConsumer() {
        return "tck-" + UUID.randomUUID();
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
