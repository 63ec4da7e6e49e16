package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.inbox.InboxKey;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated key prefixes are accepted exactly when they are 1 to 64 of {@code A-Z a-z 0-9 _ . :
 * -}, so no prefix can open a hash tag; and whatever the prefix, consumer and id, the Cluster slot
 * of a record is decided by the store's own tag alone (8 hex digits per key in the spread layout,
 * the consumer in the consumer-slot layout), and each layout's keys name their key exactly. A fixed seed, and a random one printed on failure.
 */
class RedisPrefixPropertiesTest {

    @Provide
    Arbitrary<String> prefixes() {
        Arbitrary<Character> chars = Arbitraries.oneOf(
                Arbitraries.chars().range('a', 'z'),
                Arbitraries.chars().range('0', '9'),
                Arbitraries.of('_', '.', ':', '-', '{', '}', ' ', '*', '\n', '\u00e9', '\u0000', '\uff21'));
        return Arbitraries.oneOf(
                chars.list().ofMaxSize(10).map(RedisPrefixPropertiesTest::join),
                chars.list().ofMinSize(62).ofMaxSize(66).map(RedisPrefixPropertiesTest::join));
    }

    private static String join(List<Character> chars) {
        StringBuilder out = new StringBuilder();
        chars.forEach(out::append);
        return out.toString();
    }

    private static boolean allowed(String prefix) {
        if (prefix.isEmpty() || prefix.length() > 64) {
            return false;
        }
        for (char c : prefix.toCharArray()) {
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == '.'
                    || c == ':'
                    || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @Property(tries = 2000, seed = "6379")
    void prefixAcceptedExactlyWhenAllowed_andOnlyTheStoresTagDecidesTheSlot(
            @ForAll("prefixes") String prefix, @ForAll("prefixes") String consumer, @ForAll("prefixes") String id) {
        Throwable thrown = catchThrowable(() -> RedisKeys.of(prefix));
        if (!allowed(prefix)) {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefix");
            return;
        }
        assertThat(thrown).isNull();
        if (catchThrowable(() -> InboxKey.of(consumer, id)) != null
                || catchThrowable(() -> InboxKey.of(consumer, "other")) != null) {
            return;
        }
        InboxKey key = InboxKey.of(consumer, id);
        RedisKeys spread = RedisKeys.of(prefix, RedisKeyLayout.SPREAD);
        assertThat(hashTag(spread.record(key))).as("the tag Redis hashes").matches("[0-9a-f]{8}");
        assertThat(spread.parse(spread.record(key))).isEqualTo(key);
        RedisKeys consumerSlot = RedisKeys.of(prefix, RedisKeyLayout.CONSUMER_SLOT);
        assertThat(SlotHash.getSlot(consumerSlot.record(key)))
                .isEqualTo(SlotHash.getSlot(consumerSlot.record(InboxKey.of(consumer, "other"))));
        assertThat(consumerSlot.parse(consumerSlot.record(key))).isEqualTo(key);
        assertThat(spread.parse(consumerSlot.record(key)))
                .as("one layout's keys are not the other's")
                .isNull();
        assertThat(consumerSlot.parse(spread.record(key))).isNull();
    }

    /** What Redis Cluster hashes: the text between the first '{' and the first '}' after it, if not empty. */
    private static String hashTag(byte[] key) {
        String text = new String(key, StandardCharsets.ISO_8859_1);
        int open = text.indexOf('{');
        int close = open < 0 ? -1 : text.indexOf('}', open + 1);
        return close > open + 1 ? text.substring(open + 1, close) : text;
    }

    @Property(tries = 1000)
    void prefixAcceptedExactlyWhenAllowed_randomSeed(
            @ForAll("prefixes") String prefix, @ForAll("prefixes") String consumer, @ForAll("prefixes") String id) {
        prefixAcceptedExactlyWhenAllowed_andOnlyTheStoresTagDecidesTheSlot(prefix, consumer, id);
    }
}
