package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.Reply;
import dev.inbox.ResultCodec;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Inbox#handleReturning}: request/reply consumers whose duplicates answer the first reply. */
class InboxResultsTest {

    /** A reply of a payment service, with a codec of its own. */
    record Receipt(long paymentId, int cents) {}

    static final ResultCodec<Receipt> RECEIPTS = new ResultCodec<>() {
        @Override
        public byte[] encode(Receipt value) {
            return ByteBuffer.allocate(12)
                    .putLong(value.paymentId())
                    .putInt(value.cents())
                    .array();
        }

        @Override
        public Receipt decode(byte[] bytes) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            return new Receipt(buffer.getLong(), buffer.getInt());
        }
    };

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Inbox inbox = Inbox.builder(store).consumer("payments").build();

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void duplicates_areAnsweredWithTheFirstReply_decodedByTheCodec() {
        AtomicInteger charged = new AtomicInteger();
        Reply<Receipt> first =
                inbox.handleReturning("pay-1", RECEIPTS, () -> new Receipt(charged.incrementAndGet(), 1_999));
        Reply<Receipt> second =
                inbox.handleReturning("pay-1", RECEIPTS, () -> new Receipt(charged.incrementAndGet(), 1_999));

        assertThat(charged).as("charged once").hasValue(1);
        assertThat(first.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(second.outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(second.value()).isEqualTo(first.value()).isEqualTo(new Receipt(1, 1_999));
        assertThat(second.shouldAcknowledge()).isTrue();
    }

    @Test
    void busy_hasNoValue_andIsNotAcknowledged() {
        Claim elsewhere = inbox.claims().claim("pay-busy");
        assertThat(elsewhere.isAcquired()).isTrue();
        Reply<String> busy = inbox.handleReturning("pay-busy", ResultCodec.utf8(), () -> "never");
        assertThat(busy.outcome()).isEqualTo(HandleOutcome.BUSY);
        assertThat(busy.value()).isNull();
        assertThat(busy.result()).isEmpty();
        assertThat(busy.shouldAcknowledge()).isFalse();
    }

    @Test
    void failingWork_isRethrownUnchanged_andTheNextDeliveryRunsIt() {
        IOException failure = new IOException("the payment gateway timed out");
        assertThatThrownBy(() -> inbox.<String, IOException>handleReturning("pay-2", ResultCodec.utf8(), () -> {
                    throw failure;
                }))
                .isSameAs(failure);
        assertThat(inbox.handleReturning("pay-2", ResultCodec.utf8(), () -> "ok")
                        .value())
                .as("released, so the redelivery runs the work")
                .isEqualTo("ok");
    }

    @Test
    void aCodecThatFails_releasesTheClaim_likeFailingWork() {
        ResultCodec<String> broken = new ResultCodec<>() {
            @Override
            public byte[] encode(String value) {
                throw new IllegalStateException("cannot encode " + value);
            }

            @Override
            public String decode(byte[] bytes) {
                throw new AssertionError("never decoded");
            }
        };
        assertThatThrownBy(() -> inbox.handleReturning("pay-3", broken, () -> "reply"))
                .hasMessage("cannot encode reply");
        assertThat(inbox.claims().claim("pay-3").isAcquired())
                .as("the claim was released")
                .isTrue();
    }

    @Test
    void aResultOverTheLimit_namesTheLimit_andReleasesTheClaim() {
        assertThatThrownBy(() -> inbox.handleReturning(
                        "pay-4", ResultCodec.bytes(), () -> new byte[CaffeineInboxStore.MAX_RESULT_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("over the limit of " + CaffeineInboxStore.MAX_RESULT_BYTES + " bytes")
                .hasMessageContaining("CaffeineInboxStore");
        assertThat(inbox.claims().claim("pay-4").isAcquired()).isTrue();
    }

    @Test
    void aStoreWithoutResults_isRefusedBeforeAnyClaim() {
        AtomicInteger calls = new AtomicInteger();
        InboxStore plain = new InboxStore() {
            @Override
            public ClaimResult claim(ClaimRequest request) {
                calls.incrementAndGet();
                return ClaimResult.acquired();
            }

            @Override
            public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
                calls.incrementAndGet();
                return true;
            }

            @Override
            public boolean release(InboxKey key, OwnerToken owner) {
                calls.incrementAndGet();
                return true;
            }

            @Override
            public long purge() {
                return 0;
            }

            @Override
            public void close() {}
        };
        Inbox withoutResults = Inbox.builder(plain).consumer("payments").build();
        assertThatThrownBy(() -> withoutResults.handleReturning("pay-5", ResultCodec.utf8(), () -> "reply"))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("keeps no results");
        assertThat(calls).as("no store call").hasValue(0);
    }

    @Test
    void badArguments_failBeforeAnyClaim() {
        assertThatThrownBy(() -> inbox.handleReturning("pay-6", null, () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("codec");
        assertThatThrownBy(() -> inbox.handleReturning("pay-6", ResultCodec.utf8(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("work");
        assertThatThrownBy(() -> inbox.handleReturning("", ResultCodec.utf8(), () -> "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(inbox.claims().claim("pay-6").isAcquired())
                .as("nothing was claimed")
                .isTrue();
    }

    @Test
    void aClaimCompletedWithAResult_answersItsDuplicates_withTheResult_andHowTheFingerprintsCompared() {
        Claim first = inbox.claims().claim("req-1", "fp-a");
        assertThat(first.isAcquired()).isTrue();
        first.keepRenewed();
        assertThat(first.complete("201 created".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isTrue();

        Claim same = inbox.claims().claim("req-1", "fp-a");
        assertThat(same.status()).isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(same.result().fingerprint()).isEqualTo(dev.inbox.spi.FingerprintCheck.MATCH);
        assertThat(same.result().storedResult()).asString().isEqualTo("201 created");
        assertThat(inbox.claims().claim("req-1", "fp-b").result().fingerprint())
                .as("another payload under the same key")
                .isEqualTo(dev.inbox.spi.FingerprintCheck.MISMATCH);
    }

    @Test
    void aResultLongerThanTheStoreKeeps_isRefusedBeforeAnyIo_andTheClaimStaysHeld() {
        Claim claim = inbox.claims().claim("req-big");
        byte[] tooLong = new byte[store.maxResultBytes() + 1];
        assertThatThrownBy(() -> claim.complete(tooLong))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxResultBytes");
        assertThatThrownBy(() -> claim.complete((byte[]) null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(inbox.claims().claim("req-big").status())
                .as("still held by the first claim")
                .isEqualTo(dev.inbox.spi.ClaimStatus.BUSY);
        assertThat(claim.release()).isTrue();
    }
}
