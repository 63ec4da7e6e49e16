package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxClaims;
import dev.inbox.spi.ClaimStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The claim API apart from the facade: {@link Inbox#claims()} and the copies {@code with…} make. */
class InboxClaimsTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Inbox inbox = Inbox.builder(store)
            .consumer("billing")
            .lease(Duration.ofSeconds(30))
            .build();

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void claims_areTheFacadesOwn_scopedByItsConsumer_andHeldForItsLease() {
        InboxClaims claims = inbox.claims();
        assertThat(inbox.claims()).isSameAs(claims);
        assertThat(claims.consumer()).isEqualTo("billing");
        assertThat(claims.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(claims.store()).isSameAs(store);

        Claim claim = claims.claim("e1");
        assertThat(claim.isAcquired()).isTrue();
        assertThat(inbox.handle("e1", () -> {}).outcome().name())
                .as("the facade sees the claim API's hold")
                .isEqualTo("BUSY");
        assertThat(claims.completeAll(List.of(claim))).containsExactly(true);
        assertThat(inbox.handle("e1", () -> {}).outcome().name()).isEqualTo("DUPLICATE");
    }

    @Test
    void withLease_keepsADefaultRenewalPeriod_aThirdOfTheNewLease() {
        // renewEvery was not set: a third of each lease, so a lease shorter than the first one's
        // third is still valid (a Lambda invocation's remaining time) ...
        InboxClaims short_ = inbox.claims().withLease(Duration.ofSeconds(2));
        assertThat(short_.lease()).isEqualTo(Duration.ofSeconds(2));
        assertThat(inbox.withLease(Duration.ofSeconds(2)).claims().lease()).isEqualTo(Duration.ofSeconds(2));
        assertThat(short_.claim("e2").isAcquired()).isTrue();

        // ... while a period set on the builder stays, and a lease not longer than it is refused.
        Inbox every10s = Inbox.builder(store)
                .consumer("billing")
                .lease(Duration.ofSeconds(30))
                .renewEvery(Duration.ofSeconds(10))
                .build();
        assertThatThrownBy(() -> every10s.claims().withLease(Duration.ofSeconds(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewEvery");
        assertThatThrownBy(() -> every10s.withLease(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox.claims().withLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void completeAll_refusesAClaimOfOtherClaims_beforeAnyIsCompleted() {
        Claim mine = inbox.claims().claim("a");
        Claim other = inbox.withLease(Duration.ofSeconds(20)).claims().claim("b");

        assertThatThrownBy(() -> inbox.claims().completeAll(List.of(mine, other)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("another inbox");
        assertThat(inbox.claims().claim("a").status()).as("nothing completed").isEqualTo(ClaimStatus.BUSY);
    }

    @Test
    void withConsumer_claimsUnderItsOwnKeys_withItsOwnRetentionAdvice() {
        Inbox shipping = inbox.withConsumer("shipping");
        assertThat(shipping.claims().consumer()).isEqualTo("shipping");
        inbox.handle("e3", () -> {});

        assertThat(shipping.claims().claim("e3").isAcquired())
                .as("another consumer's event of the same id")
                .isTrue();
        inbox.claims().claim("e3"); // a duplicate of billing's
        assertThat(inbox.retentionAdvice().measured()).isEqualTo(1);
        assertThat(shipping.retentionAdvice().measured()).isZero();
        assertThatThrownBy(() -> inbox.withConsumer("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @SuppressWarnings("removal")
    void theFacadesDeprecatedDelegates_claimThroughTheSameClaims() {
        Claim claim = inbox.claim("d1");
        assertThat(inbox.claims().completeAll(List.of(claim)))
                .as("accepted as a claim of these claims")
                .containsExactly(true);
        assertThat(inbox.claimAll(List.of("d1", "d2")))
                .extracting(Claim::status)
                .containsExactly(ClaimStatus.DUPLICATE, ClaimStatus.ACQUIRED);
    }
}
