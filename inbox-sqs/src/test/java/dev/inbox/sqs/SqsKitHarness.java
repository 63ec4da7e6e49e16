package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterHarness;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * What the SQS harnesses of the adapter kit share: their queues and store ({@link SqsKitQueues}),
 * their mode, publishing and closing, and a consumer's connection cut and restored at the proxy.
 */
abstract class SqsKitHarness implements AdapterHarness {

    final SqsKitQueues queues;

    SqsKitHarness(SqsKitQueues queues) {
        this.queues = queues;
    }

    @Override
    public final Mode mode() {
        return queues.mode();
    }

    @Override
    public final void publish(@Nullable String id, String payload) {
        queues.publish(id, payload);
    }

    @Override
    public final void close() throws Exception {
        queues.close();
    }

    /** A consumer of the harness: its connection goes through the queues' fault proxy. */
    abstract class Consumer implements Running {
        @Override
        public final void cutConnection() throws IOException {
            queues.cutConnection();
        }

        @Override
        public final void restoreConnection() throws IOException {
            queues.restoreConnection();
        }
    }
}
