package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A server whose script cache is empty — new, restarted, failed over, or after {@code SCRIPT
 * FLUSH} — while the store's claims of new keys send a plain {@code SET NX GET PX} and no script:
 * {@code claimAll} must load its script, not claim every key of every batch alone from then on.
 * On a server of the test's own, so its command counts are the test's alone.
 */
class RedisScriptCacheTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void claimAll_onAServerThatNeverRanTheScript_loadsIt_ratherThanClaimingEachKeyAlone() throws Exception {
        try (RedisProcesses server = RedisProcesses.standalone(false);
                RedisInboxStore store = RedisTestStores.storeOn(server, Duration.ofSeconds(5))) {
            assertThat(store.claim(request("single"))).isEqualTo(ClaimResult.acquired());
            assertThat(server.cli(server.port(), "script", "exists", sha("claim"))
                            .strip())
                    .as("a new key's single claim runs no script")
                    .isEqualTo("0");

            assertThat(store.claimAll(batch("first-", 250))).containsOnly(ClaimResult.acquired());
            assertThat(server.cli(server.port(), "script", "exists", sha("claim"))
                            .strip())
                    .as("the first batch met NOSCRIPT and sent the script's source, which loads it")
                    .isEqualTo("1");
            long noScript = scriptCalls(server, "failed_calls");

            assertThat(store.claimAll(batch("second-", 250))).containsOnly(ClaimResult.acquired());
            assertThat(scriptCalls(server, "failed_calls"))
                    .as("NOSCRIPT answers: none to the second batch, whose three script calls ran")
                    .isEqualTo(noScript);
            assertThat(store.claimAll(batch("first-", 250))).containsOnly(ClaimResult.busy());
        }
    }

    private static ClaimRequest request(String id) {
        return ClaimRequest.of(InboxKey.of("billing", id), OwnerToken.random(), LEASE);
    }

    private static List<ClaimRequest> batch(String prefix, int size) {
        OwnerToken owner = OwnerToken.random();
        List<ClaimRequest> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(ClaimRequest.of(InboxKey.of("billing", prefix + i), owner, LEASE));
        }
        return batch;
    }

    /** One count of EVALSHA in INFO commandstats ({@code failed_calls}: NOSCRIPT among them). */
    private static long scriptCalls(RedisProcesses server, String count) throws Exception {
        Matcher calls = Pattern.compile("cmdstat_evalsha:.*" + count + "=(\\d+)")
                .matcher(server.cli(server.port(), "info", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    private static String sha(String script) {
        return RedisScript.load(script).sha();
    }
}
