package dev.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.ClaimStatus;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.transaction.support.TransactionTemplate;

/** Claims joining the Spring-managed transaction on the real PostgreSQL, and lease mode outside one. */
class SpringInboxTest {

    @RegisterExtension
    static final Database db = new Database();

    @Test
    void inATransaction_theClaimCommitsWithTheBusinessWrite() {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);
        TransactionTemplate tx = new TransactionTemplate(db.transactions);

        HandleResult first = tx.execute(status -> {
            assertThat(inbox.joinsTransaction()).isTrue();
            return inbox.handle("e1", () -> db.apply(run, "e1"));
        });
        HandleResult again = tx.execute(status -> inbox.handle("e1", () -> db.apply(run, "e1")));

        assertThat(first.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(again.outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(db.applications(run)).containsEntry("e1", 1L).hasSize(1);
    }

    @Test
    void aRolledBackTransaction_takesTheClaimWithIt_andTheRedeliveryAppliesTheEvent() {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);
        TransactionTemplate tx = new TransactionTemplate(db.transactions);

        assertThatThrownBy(() -> tx.executeWithoutResult(status -> inbox.handle("e1", () -> {
                    db.apply(run, "e1");
                    throw new IllegalStateException("the listener failed after its write");
                })))
                .isInstanceOf(IllegalStateException.class);
        assertThat(db.records(run)).as("the claim rolled back with the write").isZero();
        assertThat(db.applications(run)).isEmpty();

        HandleResult redelivery = tx.execute(status -> inbox.handle("e1", () -> db.apply(run, "e1")));
        assertThat(redelivery.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(db.applications(run)).containsEntry("e1", 1L).hasSize(1);
    }

    @Test
    void aConcurrentDelivery_waitsForTheTransaction_andSeesADuplicate() throws Exception {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);
        TransactionTemplate tx = new TransactionTemplate(db.transactions);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            HandleResult first = tx.execute(status -> {
                InboxClaim claim = inbox.claim("e1");
                assertThat(claim.isTransactional()).isTrue();
                assertThat(claim.status()).isEqualTo(ClaimStatus.ACQUIRED);
                db.apply(run, "e1");
                Future<HandleResult> second =
                        other.submit(() -> tx.execute(s -> inbox.handle("e1", () -> db.apply(run, "e1"))));
                try {
                    Thread.sleep(300);
                    assertThat(second)
                            .as("the second delivery waits on the first's row")
                            .isNotDone();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return new HandleResult(HandleOutcome.PROCESSED, claim.result(), false);
            });
            assertThat(first.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        } finally {
            other.shutdown();
            assertThat(other.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(db.applications(run)).containsEntry("e1", 1L).hasSize(1);
    }

    @Test
    void outsideATransaction_theClaimIsALeaseModeClaim() {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);

        assertThat(inbox.joinsTransaction()).isFalse();
        InboxClaim claim = inbox.claim("e1");
        assertThat(claim.isTransactional()).isFalse();
        assertThat(inbox.claim("e1").status()).as("a live lease").isEqualTo(ClaimStatus.BUSY);
        assertThat(claim.release()).isTrue();
        assertThat(inbox.handle("e1", () -> db.apply(run, "e1")).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(inbox.handle("e1", () -> db.apply(run, "e1")).outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(db.applications(run)).containsEntry("e1", 1L).hasSize(1);
    }

    @Test
    void aLeaseModeFailure_releasesTheClaim() {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);

        assertThatThrownBy(() -> inbox.handle("e1", () -> {
                    throw new java.io.IOException("down");
                }))
                .isInstanceOf(java.io.IOException.class);
        assertThat(inbox.claim("e1").status()).as("released, not held").isEqualTo(ClaimStatus.ACQUIRED);
    }

    @Test
    void aStoreThatCannotJoinATransaction_isRefusedWithTheWayOut() {
        Inbox inbox = Inbox.builder(CaffeineInboxStore.builder().build())
                .consumer("c")
                .build();
        assertThatThrownBy(() -> SpringInbox.joining(inbox, db.pool))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SpringInbox.leaseOnly(inbox)");
        TransactionTemplate tx = new TransactionTemplate(db.transactions);
        SpringInbox leaseOnly = SpringInbox.leaseOnly(inbox);
        tx.executeWithoutResult(status -> {
            assertThat(leaseOnly.joinsTransaction()).isFalse();
            assertThat(leaseOnly.claim("e1").isTransactional()).isFalse();
        });
        assertThatThrownBy(() -> SpringInbox.joining(null, db.pool)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> leaseOnly.claim("")).isInstanceOf(IllegalArgumentException.class);
    }

    /** A duplicate met inside a transaction feeds the retention advice, as one met in lease mode does. */
    @Test
    void aDuplicateInATransaction_feedsTheRetentionAdvice() {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);
        TransactionTemplate tx = new TransactionTemplate(db.transactions);
        tx.execute(status -> inbox.handle("e1", () -> db.apply(run, "e1")));
        assertThat(inbox.inbox().retentionAdvice().measured()).isZero();
        HandleResult again = tx.execute(status -> inbox.handle("e1", () -> db.apply(run, "e1")));
        assertThat(again.outcome()).isEqualTo(dev.inbox.HandleOutcome.DUPLICATE);
        assertThat(inbox.inbox().retentionAdvice().measured())
                .as("duplicates measured by the inbox's retention advice")
                .isEqualTo(1);
    }
}
