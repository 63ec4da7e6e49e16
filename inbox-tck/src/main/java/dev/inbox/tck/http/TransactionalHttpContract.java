package dev.inbox.tck.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP kit's rule for transactional mode ({@link HttpRule#W8}), run over real HTTP against the
 * server a subclass's {@link TransactionalHttpHarness} starts. An integration with a transactional
 * mode runs this beside {@link HttpContract} (rules W1–W7) in that mode.
 *
 * <pre>{@code
 * class MyTransactionalFilterKitTest extends TransactionalHttpContract {
 *     protected TransactionalHttpHarness createHarness(HttpKit kit) throws Exception {
 *         return new MyServer(kit, myDataSource()); // as TransactionalHttpHarness says
 *     }
 * }
 * }</pre>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class TransactionalHttpContract extends KitServer<TransactionalHttpHarness> {

    /** Starts a server that runs the integration in transactional mode, as {@link TransactionalHttpHarness} says. */
    protected abstract TransactionalHttpHarness createHarness(HttpKit kit) throws Exception;

    @Override
    final TransactionalHttpHarness startHarness(HttpKit kit) throws Exception {
        return createHarness(kit);
    }

    @Test
    @DisplayName(
            "W8 a crash between the handler and the kept response commits neither; the retry runs the handler once")
    void w8_crashBeforeTheResponseIsKept() throws Exception {
        String path = KitClient.path();
        String key = KitClient.key();
        String crashing = path + "?mode=" + HttpKit.CRASH_FIRST;
        String body = "{\"amount\":7}";

        HttpResponse<byte[]> crashed = postOrLost(crashing, key, body);
        if (crashed != null) {
            assertThat(crashed.statusCode())
                    .as("the answer to a request whose transaction died after the handler")
                    .isGreaterThanOrEqualTo(500);
        }
        assertThat(kit.runs(path)).as("runs of the handler before the retry").isEqualTo(1);
        assertThat(effects(path))
                .as("the handler's writes committed by a request that died before its response was kept")
                .isZero();

        HttpResponse<byte[]> retry = client.post(crashing, key, "alice", body);
        assertThat(retry.statusCode()).as("the retry: the key is free again").isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpKit.REPLAYED_HEADER))
                .as("the retry ran the handler")
                .isEmpty();
        assertThat(effects(path)).as("the handler's writes after the retry").isEqualTo(1);

        HttpResponse<byte[]> repeat = client.post(crashing, key, "alice", body);
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
        assertThat(repeat.body()).as("the retry's answer, replayed").isEqualTo(retry.body());
        assertThat(kit.runs(path)).as("runs of the handler").isEqualTo(2);
        assertThat(effects(path)).as("the handler's writes after a repeat").isEqualTo(1);
    }

    /** The answer, or null when the connection ended without one (a server may drop it, as a dead one would). */
    private @Nullable HttpResponse<byte[]> postOrLost(String pathAndQuery, String key, String body) throws Exception {
        try {
            return client.post(pathAndQuery, key, "alice", body);
        } catch (IOException lost) {
            return null;
        }
    }

    private int effects(String path) throws Exception {
        if (harness == null) {
            throw new IllegalStateException("the harness did not start");
        }
        return harness.effects(path);
    }
}
