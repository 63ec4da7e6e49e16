package dev.inbox.tck.http;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the HTTP contracts share: the kit's handler, the harness's server started before their
 * rules and closed after them, and a client for it.
 */
abstract class KitServer<H extends HttpHarness> {

    final HttpKit kit = new HttpKit();

    @Nullable
    H harness;

    final KitClient client = new KitClient(() -> harness);

    /** The harness of the contract's subclass, started in front of {@code kit}. */
    abstract H startHarness(HttpKit kit) throws Exception;

    @BeforeAll
    final void startServer() throws Exception {
        harness = startHarness(kit);
    }

    @AfterAll
    final void stopServer() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
