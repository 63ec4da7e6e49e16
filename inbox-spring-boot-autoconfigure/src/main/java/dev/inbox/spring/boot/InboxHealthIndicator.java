package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.spi.OwnerToken;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when the store answers: it releases a key nobody holds, a round trip that changes nothing;
 * DOWN with the store's error otherwise.
 */
public final class InboxHealthIndicator extends AbstractHealthIndicator {

    private final Inbox inbox;
    private final InboxKey probe;

    /** Probes the store of {@code inbox}. */
    public InboxHealthIndicator(Inbox inbox) {
        super("inbox store health check failed");
        this.inbox = inbox;
        this.probe = InboxKey.of(inbox.consumer(), "inbox-health-probe");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        inbox.store().release(probe, OwnerToken.random());
        builder.up().withDetail("store", inbox.store().toString()).withDetail("consumer", inbox.consumer());
    }
}
