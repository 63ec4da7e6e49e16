package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated keys: every string is either rejected with {@link IllegalArgumentException} or
 * accepted unchanged, exactly when a strict UTF-8 encoder says it is well formed, non-empty,
 * free of U+0000 and at most 512 bytes. Each property runs with a fixed seed, and again with a
 * random one that jqwik prints when it fails.
 */
class InboxKeyPropertiesTest {

    @Provide
    Arbitrary<String> awkwardStrings() {
        Arbitrary<Character> awkward = Arbitraries.of(
                '\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '{', '}', '%', '_', '\'', '"', '\\', '\u0301',
                '\u00e9', 'e', 'A', 'a', ' ', '\t', '\uffff', '\u20ac');
        Arbitrary<String> emoji = Arbitraries.of("\ud83d\ude00", "\ud83c\udff3\ufe0f\u200d\ud83c\udf08");
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(600),
                Arbitraries.strings()
                        .withChars(awkward.sample(), awkward.sample(), awkward.sample())
                        .ofMaxLength(20),
                awkward.list()
                        .ofMaxSize(40)
                        .map(cs -> cs.stream().map(String::valueOf).reduce("", String::concat)),
                emoji.list().ofMinSize(120).ofMaxSize(135).map(list -> String.join("", list)),
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(505).ofMaxLength(520));
    }

    @Property(tries = 2000, seed = "4242")
    void aKeyIsAcceptedExactlyWhenItIsWellFormedAndFits(@ForAll("awkwardStrings") String id) {
        boolean valid = !id.isEmpty() && id.indexOf('\u0000') < 0 && utf8Length(id) >= 0 && utf8Length(id) <= 512;
        Throwable thrown = catchThrowable(() -> InboxKey.of("consumer", id));
        if (valid) {
            assertThat(thrown).isNull();
            assertThat(InboxKey.of("consumer", id).id()).isEqualTo(id);
        } else {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("id ");
        }
    }

    @Property(tries = 1000)
    void aKeyIsAcceptedExactlyWhenItIsWellFormedAndFits_randomSeed(@ForAll("awkwardStrings") String id) {
        aKeyIsAcceptedExactlyWhenItIsWellFormedAndFits(id);
    }

    @Property(tries = 1000, seed = "4243")
    void distinctValidIds_giveDistinctKeys(@ForAll("awkwardStrings") String a, @ForAll("awkwardStrings") String b) {
        if (catchThrowable(() -> InboxKey.of("c", a)) != null || catchThrowable(() -> InboxKey.of("c", b)) != null) {
            return;
        }
        assertThat(InboxKey.of("c", a).equals(InboxKey.of("c", b))).isEqualTo(a.equals(b));
    }

    @Property(tries = 500)
    void distinctValidIds_giveDistinctKeys_randomSeed(
            @ForAll("awkwardStrings") String a, @ForAll("awkwardStrings") String b) {
        distinctValidIds_giveDistinctKeys(a, b);
    }

    /** The strict UTF-8 length of {@code s}, or -1 when it holds an unpaired surrogate. */
    private static int utf8Length(String s) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8
                    .newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(java.nio.CharBuffer.wrap(s));
            return bytes.remaining();
        } catch (CharacterCodingException e) {
            return -1;
        }
    }
}
