package dev.inbox.spring.kafka.share;

import dev.inbox.kafka.KafkaShareInboxLoop;
import dev.inbox.kafka.RecordHandler;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.ShareConsumerFactory;
import org.springframework.kafka.listener.AcknowledgingShareConsumerAwareMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.GenericMessageListener;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * A share listener container whose members are {@link KafkaShareInboxLoop}s: one thread per member
 * polls and acknowledges, the loop's worker calls the listener. Made by {@link
 * InboxShareContainerFactory}; the container's concurrency is its number of members.
 *
 * <p>A member whose loop ends by a throw (an {@link Error} from the listener, a consumer that
 * failed) is logged at ERROR and closed; once no member is left the container reports itself
 * stopped, so whatever supervises the application sees it ({@link #isRunning()}, {@link
 * #isInExpectedState()}).
 */
final class InboxShareListenerContainer<K, V> extends ShareKafkaMessageListenerContainer<K, V> {

    private static final System.Logger LOG = System.getLogger(InboxShareListenerContainer.class.getName());

    /** How long {@link #stop()} waits for a member to finish the record in hand and close. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final ShareConsumerFactory<K, V> consumers;
    private final Loops<K, V> loops;
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private int concurrency = 1;
    private volatile boolean memberFailed;

    InboxShareListenerContainer(
            ShareConsumerFactory<K, V> consumers, ContainerProperties properties, Loops<K, V> loops) {
        super(consumers, properties);
        this.consumers = consumers;
        this.loops = loops;
    }

    @Override
    public void setConcurrency(int concurrency) {
        super.setConcurrency(concurrency);
        this.concurrency = concurrency;
    }

    /** Each running member's share consumer metrics, by its thread's name. */
    @Override
    public Map<String, Map<MetricName, ? extends Metric>> metrics() {
        Map<String, Map<MetricName, ? extends Metric>> metrics = new LinkedHashMap<>();
        for (Member member : members) {
            metrics.put(member.thread.getName(), member.consumer.metrics());
        }
        return metrics;
    }

    @Override
    public boolean isInExpectedState() {
        return isRunning() && !memberFailed;
    }

    @Override
    protected void doStart() {
        if (isRunning()) {
            return;
        }
        ContainerProperties properties = getContainerProperties();
        if (properties.getShareAckMode() != ContainerProperties.ShareAckMode.EXPLICIT) {
            throw new IllegalStateException("the inbox acknowledges each record itself: the share acknowledgement"
                    + " mode must be EXPLICIT, not " + properties.getShareAckMode());
        }
        RecordHandler<K, V> handler = listener(properties.getMessageListener());
        List<String> topics = List.of(properties.getTopics());
        String group = getGroupId();
        if (group == null || group.isEmpty()) {
            throw new IllegalStateException("a share listener needs a group id: set @KafkaListener(groupId = ...)"
                    + " or the container's group id");
        }
        List<Member> started = new ArrayList<>();
        try {
            for (int i = 0; i < concurrency; i++) {
                ShareConsumer<K, V> consumer = consumers.createShareConsumer(
                        group, clientId(i), Map.of(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit"));
                started.add(new Member(consumer, i));
                started.get(i).loop = loops.loop(consumer, handler, group);
            }
        } catch (RuntimeException e) {
            started.forEach(Member::closeUnstarted);
            throw e;
        }
        memberFailed = false;
        setRunning(true);
        Duration poll = Duration.ofMillis(Math.min(properties.getPollTimeout(), 1_000));
        for (Member member : started) {
            members.add(member);
            member.start(topics, poll);
        }
    }

    @Override
    protected void doStop() {
        setRunning(false);
        members.forEach(Member::stop);
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        for (Member member : members) {
            member.join(deadline);
        }
        members.clear();
    }

    private String beanName() {
        String name = getBeanName();
        return name == null ? "inbox-share" : name;
    }

    private @Nullable String clientId(int member) {
        String prefix = getContainerProperties().getClientId();
        return prefix.isEmpty() ? null : prefix + "-" + member;
    }

    /** Calls {@code listener} as Spring's share container does in EXPLICIT mode: no acknowledgment, no consumer. */
    @SuppressWarnings("unchecked")
    private RecordHandler<K, V> listener(@Nullable Object listener) {
        if (listener instanceof AcknowledgingShareConsumerAwareMessageListener<?, ?> acknowledging) {
            AcknowledgingShareConsumerAwareMessageListener<K, V> typed =
                    (AcknowledgingShareConsumerAwareMessageListener<K, V>) acknowledging;
            return record -> typed.onShareRecord(record, null, null);
        }
        if (listener instanceof GenericMessageListener<?> generic) {
            GenericMessageListener<ConsumerRecord<K, V>> typed = (GenericMessageListener<ConsumerRecord<K, V>>) generic;
            return typed::onMessage;
        }
        throw new IllegalStateException("a share container needs a GenericMessageListener, not " + listener);
    }

    /** Builds a member's loop. */
    @FunctionalInterface
    interface Loops<K, V> {
        /** A loop over {@code consumer} that hands each new event to {@code handler}, for share group {@code group}. */
        KafkaShareInboxLoop<K, V> loop(ShareConsumer<K, V> consumer, RecordHandler<K, V> handler, String group);
    }

    /** One member: a share consumer, the loop over it, and the thread that runs the loop. */
    private final class Member {
        final ShareConsumer<K, V> consumer;
        final Thread thread;

        @Nullable
        KafkaShareInboxLoop<K, V> loop;

        Member(ShareConsumer<K, V> consumer, int index) {
            this.consumer = consumer;
            this.thread = new Thread(this::runLoop, beanName() + "-inbox-share-" + index);
        }

        private List<String> topics = List.of();
        private Duration poll = Duration.ofSeconds(1);

        void start(List<String> topics, Duration poll) {
            this.topics = topics;
            this.poll = poll;
            thread.start();
        }

        private void runLoop() {
            KafkaShareInboxLoop<K, V> running = loop;
            try (running) {
                running.subscribe(topics);
                running.run(poll);
            } catch (Throwable failed) {
                memberFailed = true;
                LOG.log(Level.ERROR, thread.getName() + " stopped: its share loop ended by a throw", failed);
            } finally {
                close();
                members.remove(this);
                if (members.isEmpty() && memberFailed) {
                    setRunning(false);
                }
            }
        }

        void stop() {
            KafkaShareInboxLoop<K, V> running = loop;
            if (running != null) {
                running.stop();
            }
        }

        void join(long deadline) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.log(Level.WARNING, thread.getName() + " did not stop within " + STOP_WAIT);
            }
        }

        void closeUnstarted() {
            KafkaShareInboxLoop<K, V> unstarted = loop;
            if (unstarted != null) {
                unstarted.close();
            }
            close();
        }

        private void close() {
            try {
                consumer.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing the share consumer of " + thread.getName() + " failed", e);
            }
        }
    }
}
