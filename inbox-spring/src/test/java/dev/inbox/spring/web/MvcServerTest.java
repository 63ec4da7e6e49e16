package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.tck.http.HttpKit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The test server itself: the module's test classes run side by side, so several {@link MvcServer}s
 * start in one JVM at the same moment. Each embedded Tomcat registered its web application's class
 * loader under the same JMX name, and two starts racing on that name failed one of them ("A child
 * container failed during start"); the server keeps Tomcat's JMX registry off, as Spring Boot does.
 */
class MvcServerTest {

    private static final int SIDE_BY_SIDE = 4;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void serversStartedAtTheSameMomentAllStart() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(SIDE_BY_SIDE);
        try {
            for (int round = 0; round < 5; round++) {
                CyclicBarrier together = new CyclicBarrier(SIDE_BY_SIDE);
                List<Future<MvcServer>> starts = new ArrayList<>();
                for (int i = 0; i < SIDE_BY_SIDE; i++) {
                    starts.add(threads.submit(() -> start(together)));
                }
                List<Throwable> failures = new ArrayList<>();
                for (Future<MvcServer> start : starts) {
                    try (MvcServer server = start.get(60, TimeUnit.SECONDS)) {
                        assertThat(server.base.getPort()).isPositive();
                    } catch (ExecutionException e) {
                        failures.add(e.getCause());
                    }
                }
                assertThat(failures).as("round %d", round).isEmpty();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static MvcServer start(CyclicBarrier together) throws Exception {
        Inbox inbox = Inbox.builder(CaffeineInboxStore.builder().build())
                .consumer("mvc-server")
                .build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.global())
                .build();
        together.await(10, TimeUnit.SECONDS);
        return new MvcServer(
                SpringMvcHttpKitTest.Web.class,
                application -> application.addBeanFactoryPostProcessor(
                        beans -> beans.registerSingleton("httpKit", new HttpKit())),
                requests);
    }
}
