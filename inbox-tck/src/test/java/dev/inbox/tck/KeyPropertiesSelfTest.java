package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxStore;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * The generated-key properties pass on the reference store and catch the collisions that a
 * case-folding, normalizing or byte-truncating store makes. Runs jqwik through the Platform's
 * test kit.
 */
class KeyPropertiesSelfTest {

    static class CorrectKeys extends KeyExactnessProperties {
        @Override
        protected InboxStore createStore() {
            return new ReferenceStore(Duration.ofMinutes(10));
        }
    }

    static class CaseFoldingKeys extends KeyExactnessProperties {
        @Override
        protected InboxStore createStore() {
            return new ReferenceStore(Duration.ofMinutes(10)) {
                @Override
                String mapKey(InboxKey key) {
                    return super.mapKey(key).toLowerCase(Locale.ROOT);
                }
            };
        }
    }

    static class NormalizingKeys extends KeyExactnessProperties {
        @Override
        protected InboxStore createStore() {
            return new ReferenceStore(Duration.ofMinutes(10)) {
                @Override
                String mapKey(InboxKey key) {
                    return Normalizer.normalize(super.mapKey(key), Normalizer.Form.NFC);
                }
            };
        }
    }

    /** Keeps the first 511 bytes of an id, as a column one byte too short would. */
    static class TruncatingKeys extends KeyExactnessProperties {
        @Override
        protected InboxStore createStore() {
            return new ReferenceStore(Duration.ofMinutes(10)) {
                @Override
                String mapKey(InboxKey key) {
                    byte[] id = key.idBytes();
                    return key.consumer()
                            + '\0'
                            + new String(Arrays.copyOf(id, Math.min(id.length, 511)), StandardCharsets.ISO_8859_1);
                }
            };
        }
    }

    private static Events run(Class<?> properties) {
        return EngineTestKit.engine("jqwik")
                .selectors(selectClass(properties))
                .execute()
                .testEvents();
    }

    @Test
    void correctStore_passesBothProperties() {
        Events events = run(CorrectKeys.class);
        assertThat(events.failed().list()).isEmpty();
        assertThat(events.succeeded().count()).isEqualTo(2);
    }

    @Test
    void caseFoldingStore_fails() {
        assertThat(run(CaseFoldingKeys.class).failed().count()).isPositive();
    }

    @Test
    void normalizingStore_fails() {
        assertThat(run(NormalizingKeys.class).failed().count()).isPositive();
    }

    @Test
    void truncatingStore_fails() {
        assertThat(run(TruncatingKeys.class).failed().count()).isPositive();
    }
}
