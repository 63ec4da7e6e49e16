package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * Rule C7 by generation (jqwik): ids and consumers of arbitrary Unicode — surrogate pairs, lone
 * surrogates, U+0000, combining marks, 511/512/513-byte boundaries, SQL and Lua metacharacters,
 * Redis hash-tag braces — and pairs of ids that differ by a case, a normalization, a trailing
 * byte. Each input is rejected by {@link InboxKey} with {@link IllegalArgumentException} (before
 * any store sees it) or claimed, completed and compared by the store exactly: a second id equal to
 * the first is DUPLICATE, a different one is ACQUIRED — one claim at a time and through {@link
 * InboxStore#claimAll}.
 *
 * <p>One property runs with a fixed seed, so a build is repeatable; the other with a random seed,
 * which jqwik prints when it fails (rerun it with {@code @Property(seed = "...")}).
 *
 * <pre>{@code
 * class MyStoreKeyPropertiesTest extends KeyExactnessProperties {
 *     protected InboxStore createStore() { return MyStore.builder(dataSource).build(); }
 * }
 * }</pre>
 */
public abstract class KeyExactnessProperties {

    private static final AtomicLong TRIES = new AtomicLong();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final Duration LEASE = Duration.ofMinutes(10);

    private InboxStore store;

    /** A store for one property's tries; it may share its table or keyspace with other tests. */
    protected abstract InboxStore createStore() throws Exception;

    @BeforeProperty
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterProperty
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Property(tries = 300, seed = "20261130")
    @Label("C7 generated ids and consumers are rejected before I/O or compared exactly (fixed seed)")
    void c7_generatedKeys_fixedSeed(@ForAll("pairs") List<String> ids, @ForAll("consumers") String consumer) {
        check(consumer, ids.get(0), ids.get(1));
    }

    @Property(tries = 100)
    @Label("C7 generated ids and consumers are rejected before I/O or compared exactly (random seed)")
    void c7_generatedKeys_randomSeed(@ForAll("pairs") List<String> ids, @ForAll("consumers") String consumer) {
        check(consumer, ids.get(0), ids.get(1));
    }

    private void check(String consumerTail, String a, String b) {
        // A consumer of this try's own (the generated text follows a unique prefix), so tries
        // never see each other's records.
        String consumer = "kx-" + RUN + "-" + TRIES.incrementAndGet() + "-" + consumerTail;
        InboxKey first = keyOrRejected(consumer, a);
        InboxKey second = keyOrRejected(consumer, b);
        if (first == null) {
            return;
        }
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(first, owner, LEASE)))
                .as("a fresh key: %s", describe(a))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(first, owner, LEASE)).isTrue();
        if (second == null) {
            return;
        }
        assertThat(store.claim(ClaimRequest.of(second, OwnerToken.random(), LEASE))
                        .status())
                .as("after %s, %s", describe(a), describe(b))
                .isEqualTo(a.equals(b) ? ClaimStatus.DUPLICATE : ClaimStatus.ACQUIRED);

        // The same two ids through a batch, under a consumer of their own.
        String batchConsumer = consumer + "-batch";
        List<ClaimResult> batch = store.claimAll(List.of(
                ClaimRequest.of(InboxKey.of(batchConsumer, a), OwnerToken.random(), LEASE),
                ClaimRequest.of(InboxKey.of(batchConsumer, b), OwnerToken.random(), LEASE)));
        assertThat(batch.get(0)).as("claimAll, first: %s", describe(a)).isEqualTo(ClaimResult.acquired());
        assertThat(batch.get(1).isAcquired())
                .as("claimAll, %s after %s", describe(b), describe(a))
                .isEqualTo(!a.equals(b));
    }

    /** The key, or null when {@link InboxKey} rejects it — which must be an IllegalArgumentException. */
    private static InboxKey keyOrRejected(String consumer, String id) {
        Throwable thrown = catchThrowable(() -> InboxKey.of(consumer, id));
        if (thrown == null) {
            InboxKey key = InboxKey.of(consumer, id);
            assertThat(key.id()).isEqualTo(id);
            assertThat(key.consumer()).isEqualTo(consumer);
            return key;
        }
        assertThat(thrown).as("rejecting %s", describe(id)).isInstanceOf(IllegalArgumentException.class);
        return null;
    }

    private static String describe(String s) {
        StringBuilder out = new StringBuilder("\"");
        s.codePoints()
                .limit(40)
                .forEach(cp -> out.append(
                        cp >= 0x20 && cp < 0x7f ? Character.toString(cp) : String.format(Locale.ROOT, "\\u{%x}", cp)));
        return out.append(s.codePointCount(0, s.length()) > 40 ? "…\"" : "\"")
                .append(" (")
                .append(s.getBytes(StandardCharsets.UTF_8).length)
                .append(" bytes)")
                .toString();
    }

    @Provide
    Arbitrary<String> consumers() {
        return Arbitraries.oneOf(awkward(12), Arbitraries.strings().all().ofMaxLength(30));
    }

    /** Two ids: independent, equal, or the second a near miss of the first. */
    @Provide
    Arbitrary<List<String>> pairs() {
        Arbitrary<String> ids = ids();
        Arbitrary<String> head = awkward(10);
        return Arbitraries.frequencyOf(
                Tuple.of(3, ids.list().ofSize(2)),
                Tuple.of(2, ids.map(id -> List.of(id, id))),
                Tuple.of(1, ids.map(id -> List.of(id, id.toUpperCase(Locale.ROOT)))),
                Tuple.of(1, ids.map(id -> List.of(id, Normalizer.normalize(id, Normalizer.Form.NFD)))),
                Tuple.of(1, ids.map(id -> List.of(id, id + "x"))),
                Tuple.of(1, ids.map(id -> List.of(id, id.isEmpty() ? "x" : id.substring(0, id.length() - 1)))),
                // Near misses that are always there: case, NFC vs NFD, the last of 512 bytes.
                Tuple.of(2, head.map(h -> List.of(h + "a", h + "A"))),
                Tuple.of(2, head.map(h -> List.of(h + "\u00e9", h + "e\u0301"))),
                Tuple.of(
                        2,
                        Arbitraries.of("a", "b", "\u00e9")
                                .list()
                                .ofSize(2)
                                .map(tails ->
                                        List.of("k".repeat(511) + tails.get(0), "k".repeat(511) + tails.get(1)))));
    }

    private static Arbitrary<String> ids() {
        return Arbitraries.oneOf(
                awkward(40),
                Arbitraries.strings().all().ofMaxLength(200),
                // 511 to 513 UTF-8 bytes: ASCII, or 2-byte é, or a 4-byte emoji at the edge.
                Arbitraries.integers().between(509, 514).map("k"::repeat),
                Arbitraries.integers().between(254, 257).map("\u00e9"::repeat),
                Arbitraries.integers().between(126, 129).map("\ud83d\ude00"::repeat),
                Arbitraries.integers().between(0, 3).map(n -> "a".repeat(508 + n) + "\ud83d\ude00"));
    }

    /** Strings made of the pieces that break naive stores. */
    private static Arbitrary<String> awkward(int maxPieces) {
        Arbitrary<String> piece = Arbitraries.of(
                "\u0000",
                "\ud800",
                "\udbff",
                "\udc00",
                "\udfff",
                "\ud83d\ude00",
                "\u00e9",
                "e\u0301",
                "\u0301",
                "A",
                "a",
                "\u00df",
                "SS",
                "{",
                "}",
                "{}",
                "}{",
                "'",
                "\"",
                "\\",
                "%",
                "_",
                ";",
                "--",
                "`",
                "$",
                "[",
                "]",
                "*",
                "?",
                "\n",
                " ",
                "\t",
                "' OR '1'='1",
                "redis.call('FLUSHALL')",
                "#{x}",
                ":",
                "|",
                "\uffff",
                "\u20ac",
                "\u200d");
        return piece.list().ofMaxSize(maxPieces).map(list -> String.join("", list));
    }
}
