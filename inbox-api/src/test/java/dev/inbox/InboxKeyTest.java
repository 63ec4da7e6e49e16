package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class InboxKeyTest {

    @Test
    void of_acceptsKeysUpTo512Utf8Bytes() {
        assertThat(InboxKey.of("c", "a".repeat(512)).id()).hasSize(512);
        assertThat(InboxKey.of("c", "\u00e9".repeat(256)).idBytes()).hasSize(512);
        assertThat(InboxKey.of("c", "\ud83d\ude00".repeat(128)).idBytes()).hasSize(512);
        assertThat(InboxKey.of("\u20ac".repeat(170), "id").consumer()).hasSize(170); // 510 bytes
    }

    @Test
    void of_rejectsKeysOver512Utf8Bytes_countingBytesNotChars() {
        assertThatThrownBy(() -> InboxKey.of("c", "a".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("id is longer than 512 UTF-8 bytes");
        assertThatThrownBy(() -> InboxKey.of("c", "\u00e9".repeat(256) + "a"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxKey.of("c", "\ud83d\ude00".repeat(128) + "a"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxKey.of("\u20ac".repeat(171), "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("consumer");
    }

    @Test
    void of_rejectsNullEmptyNulAndLoneSurrogates_namingThePart() {
        assertThatThrownBy(() -> InboxKey.of(null, "id")).hasMessage("consumer must not be null");
        assertThatThrownBy(() -> InboxKey.of("c", null)).hasMessage("id must not be null");
        assertThatThrownBy(() -> InboxKey.of("", "id")).hasMessage("consumer must not be empty");
        assertThatThrownBy(() -> InboxKey.of("c", "a\u0000b")).hasMessage("id must not contain U+0000 (at index 1)");
        assertThatThrownBy(() -> InboxKey.of("c", "a\ud83d"))
                .hasMessage("id has an unpaired high surrogate at index 1");
        assertThatThrownBy(() -> InboxKey.of("c", "\ude00a")).hasMessage("id has an unpaired low surrogate at index 0");
        assertThatThrownBy(() -> InboxKey.of("c", "\ud83d\ud83d\ude00")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void equality_isExact() {
        assertThat(InboxKey.of("c", "a")).isEqualTo(InboxKey.of("c", "a"));
        assertThat(InboxKey.of("c", "a")).isNotEqualTo(InboxKey.of("c", "A"));
        assertThat(InboxKey.of("c", "\u00e9")).isNotEqualTo(InboxKey.of("c", "e\u0301"));
        assertThat(InboxKey.of("c1", "a")).isNotEqualTo(InboxKey.of("c", "1a"));
    }

    @Test
    void ownerToken_randomTokensAreDistinctAndValid() {
        OwnerToken a = OwnerToken.random();
        assertThat(a).isNotEqualTo(OwnerToken.random());
        assertThat(a.value()).hasSize(22);
        assertThat(OwnerToken.of(a.value())).isEqualTo(a);
    }

    @Test
    void ownerToken_neverRepeatsAcrossThreads() throws Exception {
        java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<?>> drawn = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                drawn.add(pool.submit(() -> {
                    for (int i = 0; i < 50_000; i++) {
                        seen.add(OwnerToken.random().value());
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : drawn) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).as("distinct tokens of 200,000 drawn on 4 threads").hasSize(200_000);
    }

    @Test
    void ownerToken_rejectsEmptyLongAndNonAscii() {
        assertThatThrownBy(() -> OwnerToken.of("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OwnerToken.of("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OwnerToken.of("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OwnerToken.of("\u00e9")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OwnerToken.of(null)).hasMessage("owner must not be null");
    }

    @Test
    void claimRequest_validatesLeaseAndFingerprint() {
        InboxKey key = InboxKey.of("c", "a");
        OwnerToken owner = OwnerToken.random();
        assertThatThrownBy(() -> ClaimRequest.of(key, owner, Duration.ZERO))
                .hasMessage("lease must be positive but was PT0S");
        assertThatThrownBy(() -> ClaimRequest.of(key, owner, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClaimRequest.of(null, owner, Duration.ofSeconds(1)))
                .hasMessage("key must not be null");
        ClaimRequest request = ClaimRequest.of(key, owner, Duration.ofSeconds(1));
        assertThatThrownBy(() -> request.withFingerprint("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> request.withFingerprint("x".repeat(129))).isInstanceOf(IllegalArgumentException.class);
        assertThat(request.withFingerprint("sha256:ab").fingerprint()).isEqualTo("sha256:ab");
        assertThat(request.withFingerprint(null).fingerprint()).isNull();
    }

    @Test
    void claimResult_valuesAreDistinguishable() {
        assertThat(ClaimResult.acquired()).isNotEqualTo(ClaimResult.takenOver());
        assertThat(ClaimResult.takenOver().isAcquired()).isTrue();
        assertThat(ClaimResult.duplicate(true, FingerprintCheck.MATCH))
                .isNotEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH))
                .hasToString("DUPLICATE(late)[fingerprint MATCH]");
        assertThat(ClaimResult.duplicate(true, FingerprintCheck.MATCH).isLate()).isTrue();
        assertThat(FingerprintCheck.compare("a", null)).isEqualTo(FingerprintCheck.NOT_COMPARED);
        assertThat(FingerprintCheck.compare("a", "b")).isEqualTo(FingerprintCheck.MISMATCH);
    }

    @Test
    void sequenceResult_decides() {
        assertThat(SequenceResult.decide(3, 3).status()).isEqualTo(SequenceStatus.APPLIED);
        assertThat(SequenceResult.decide(2, 3).status()).isEqualTo(SequenceStatus.STALE);
        assertThat(SequenceResult.decide(4, 3)).isEqualTo(new SequenceResult(SequenceStatus.GAP, 3));
    }
}
