package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.inbox.InboxStoreException;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** The check of the failure rules (E2–E5): an operation on a server that cannot answer. */
final class StoreFailures {

    private StoreFailures() {}

    /**
     * Asserts that {@code call} fails with {@link InboxStoreException}, with a message, within
     * {@code bound}: what every operation must do while its server cannot answer.
     */
    static void assertStoreFailure(Duration bound, String operation, ThrowingCallable call) {
        assertTimeoutPreemptively(
                bound,
                () -> {
                    Throwable thrown = catchThrowable(call);
                    assertThat(thrown)
                            .as("%s while the server cannot answer", operation)
                            .isInstanceOf(InboxStoreException.class);
                    assertThat(thrown.getMessage())
                            .as("the message of %s's failure", operation)
                            .isNotBlank();
                },
                operation + " did not fail within the bound");
    }
}
