package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spring.sqs.InboxSqsListeners;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.testing.SqsQueues;
import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.config.SqsBootstrapConfiguration;
import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The starter with Spring Cloud AWS SQS: {@code @SqsListener} methods deduplicated, against the real SQS server. */
@Timeout(90)
@Tag("extended") // CI and -Pextended; the starter's SQS wiring is BootSqsStarterKitTest's too
class InboxSqsStarterTest {

    static final Map<String, AtomicInteger> APPLIED = new ConcurrentHashMap<>();

    private final SqsClient sqs = SqsQueues.client();
    private String queueName;
    private String queueUrl;

    private ApplicationContextRunner runner() {
        return runnerWithoutKeyHeader().withPropertyValues("inbox.sqs.key-header=event-id");
    }

    private ApplicationContextRunner runnerWithoutKeyHeader() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
                .withUserConfiguration(SqsApplication.class)
                .withPropertyValues(
                        "spring.application.name=sqs-" + UUID.randomUUID(),
                        "inbox.store=memory",
                        "inbox.test.sqs.queue=" + queueName);
    }

    @BeforeEach
    void queue() {
        queueName = "inbox-starter-sqs-" + UUID.randomUUID();
        queueUrl = sqs.createQueue(r -> r.queueName(queueName)).queueUrl();
        APPLIED.clear();
    }

    @AfterEach
    void close() {
        sqs.deleteQueue(r -> r.queueUrl(queueUrl));
        sqs.close();
    }

    private void send(String body, String eventId) {
        SqsQueues.send(sqs, queueUrl, body, "event-id", eventId);
    }

    private static int applied() {
        return APPLIED.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    private void awaitDeleted(int published) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            int left = SqsQueues.messagesLeft(sqs, queueUrl);
            if (left == 0 && applied() > 0) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("%d messages still on the queue", left)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void anSqsListener_appliesEachEventOnce_andItsDuplicatesAreDeleted() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(InboxSqsListeners.class);
            send("one", "e1");
            send("one again", "e1"); // a re-send of e1 with another body
            send("two", "e2");
            awaitDeleted(3);
            Thread.sleep(500);
            assertThat(applied()).as("events applied").isEqualTo(2);
            assertThat(context.getBean(InboxSqsListeners.class)
                            .counts("starter-orders")
                            .duplicates())
                    .isEqualTo(1);
        });
    }

    @Test
    void withTheInboxOff_theSameListenerAppliesTheResendToo() {
        runner().withPropertyValues("inbox.sqs.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(InboxSqsListeners.class);
            send("one", "e1");
            send("one again", "e1");
            awaitDeleted(2);
            Thread.sleep(500);
            assertThat(applied()).as("what the inbox would have suppressed").isEqualTo(2);
            assertThat(APPLIED).containsOnlyKeys("one", "one again");
        });
    }

    @Test
    void anSqsKeysBean_isTheKeyFunction_andRefusedBesideTheKeyHeaderProperty() {
        SqsKeys byBody = message -> message.body().substring(0, 3); // "one" and "one again": one event
        runnerWithoutKeyHeader().withBean(SqsKeys.class, () -> byBody).run(context -> {
            send("one", "e1");
            send("one again", "e2");
            awaitDeleted(2);
            Thread.sleep(500);
            assertThat(APPLIED).as("applied, keyed by the bean").containsOnlyKeys("one");
        });
        runner().withBean(SqsKeys.class, () -> byBody).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("inbox.sqs.key-header")
                    .hasMessageContaining("bean");
        });
    }

    @Test
    void transactionalSqsListeners_areRefused_withWhatToDoInstead() {
        runner().withPropertyValues("inbox.sqs.transactional=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("@Transactional");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @Import(SqsBootstrapConfiguration.class)
    static class SqsApplication {

        @Bean(destroyMethod = "close")
        SqsAsyncClient sqsAsyncClient() {
            return SqsQueues.asyncClient();
        }

        @Bean
        SqsMessageListenerContainerFactory<Object> defaultSqsListenerContainerFactory(SqsAsyncClient client) {
            return SqsMessageListenerContainerFactory.builder()
                    .sqsAsyncClient(client)
                    .configure(options -> options.pollTimeout(Duration.ofSeconds(1))
                            .acknowledgementInterval(Duration.ofMillis(100))
                            .acknowledgementThreshold(1))
                    .build();
        }

        @SqsListener(value = "${inbox.test.sqs.queue}", id = "starter-orders")
        void on(String body) {
            APPLIED.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
        }
    }
}
