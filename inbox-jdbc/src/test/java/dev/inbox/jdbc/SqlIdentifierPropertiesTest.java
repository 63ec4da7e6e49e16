package dev.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated table and schema names — quotes, backticks, semicolons, spaces, line breaks, U+0000,
 * non-ASCII letters and digits, 62 to 65 characters — are accepted exactly when they are a plain
 * ASCII identifier, and an accepted name quotes without any quote character inside it. A fixed
 * seed, and a random one jqwik prints on failure.
 */
class SqlIdentifierPropertiesTest {

    @Provide
    Arbitrary<String> names() {
        Arbitrary<Character> chars = Arbitraries.oneOf(
                Arbitraries.chars().range('a', 'z'),
                Arbitraries.chars().range('A', 'Z'),
                Arbitraries.chars().range('0', '9'),
                Arbitraries.of(
                        '_', '"', '`', '\'', ';', ' ', '\n', '\u0000', '.', '-', '$', '\u00e9', '\u0131', '\u0663',
                        '\uff21', '\u212a'));
        return Arbitraries.oneOf(
                chars.list().ofMaxSize(12).map(SqlIdentifierPropertiesTest::join),
                chars.list().ofMinSize(61).ofMaxSize(66).map(SqlIdentifierPropertiesTest::join),
                Arbitraries.integers().between(61, 65).map("t"::repeat));
    }

    private static String join(java.util.List<Character> chars) {
        StringBuilder out = new StringBuilder();
        chars.forEach(out::append);
        return out.toString();
    }

    /** The rule, written out by hand rather than as the regular expression the class uses. */
    private static boolean plainIdentifier(String name) {
        if (name.isEmpty() || name.length() > 63) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
            boolean digit = c >= '0' && c <= '9';
            if (!(letter || (digit && i > 0))) {
                return false;
            }
        }
        return true;
    }

    @Property(tries = 2000, seed = "5150")
    void acceptedExactlyWhenPlain(@ForAll("names") String name) {
        Throwable thrown = catchThrowable(() -> SqlIdentifier.of(name, "table"));
        if (plainIdentifier(name)) {
            assertThat(thrown).isNull();
            String quoted = SqlIdentifier.of(name, "table").quoted('"');
            assertThat(quoted.substring(1, quoted.length() - 1)).doesNotContain("\"", "`", "'", ";");
        } else {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("table ");
        }
    }

    @Property(tries = 1000)
    void acceptedExactlyWhenPlain_randomSeed(@ForAll("names") String name) {
        acceptedExactlyWhenPlain(name);
    }
}
