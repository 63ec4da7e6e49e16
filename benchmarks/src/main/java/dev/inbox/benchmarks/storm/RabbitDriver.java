package dev.inbox.benchmarks.storm;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import dev.inbox.rabbitmq.InboxConsumer;
import dev.inbox.rabbitmq.MessageKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The storm through RabbitMQ: a queue of its own on {@code --amqp-uri}, the event id as each
 * message's {@code message-id}, and members each consuming on a channel of their own with an
 * {@link InboxConsumer} (prefetch 50; in --mode transactional-batch, windows of 25 deliveries to a
 * transaction). A member that crashes has its channel closed by the client
 * library, and the broker requeues what it left unacknowledged.
 */
final class RabbitDriver implements BrokerDriver {

    /** Deliveries to a transaction in --mode transactional-batch: half the prefetch. */
    private static final int WINDOW = 25;

    private final StormTarget target;
    private final String uri;
    private final Connection connection;
    private final String queue = "inbox-storm-" + UUID.randomUUID();
    private final List<InboxConsumer> consumers = new CopyOnWriteArrayList<>();
    private long published;

    RabbitDriver(StormConfig config, StormTarget target) throws Exception {
        this.target = target;
        this.uri = config.amqpUri();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        factory.setConnectionTimeout(5_000);
        try {
            this.connection = factory.newConnection("inbox-storm");
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot reach RabbitMQ at " + factory.getHost() + ":" + factory.getPort() + ": " + e.getMessage(),
                    e);
        }
        try (Channel setup = connection.createChannel()) {
            setup.queueDeclare(queue, false, false, false, null);
        }
    }

    @Override
    public String describe() {
        return "rabbitmq " + connection.getAddress().getHostAddress() + ":" + connection.getPort();
    }

    @Override
    public void publish(List<Integer> events) throws Exception {
        try (Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            for (int event : events) {
                AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                        .messageId("e" + event)
                        .build();
                channel.basicPublish("", queue, props, Integer.toString(event).getBytes(StandardCharsets.UTF_8));
            }
            channel.waitForConfirmsOrDie(60_000);
        }
        published += events.size();
    }

    @Override
    public Member join(Applier applier) throws Exception {
        Channel channel = connection.createChannel();
        channel.basicQos(50);
        InboxConsumer.Builder builder;
        if (target instanceof TransactionalTarget transactional) {
            builder = InboxConsumer.transactional(
                    channel, transactional.inbox(), (delivery, c) -> applier.apply(event(delivery), c));
            if (transactional.batches()) {
                builder.window(WINDOW, Duration.ofMillis(10));
            }
        } else {
            builder = InboxConsumer.builder(
                    channel, ((LeaseTarget) target).inbox(), delivery -> applier.apply(event(delivery), null));
        }
        InboxConsumer consumer = builder.keys(MessageKeys.messageId())
                .busyRequeueDelay(Duration.ofMillis(20))
                .build();
        consumers.add(consumer);
        channel.basicConsume(queue, false, consumer);
        return new Member() {
            @Override
            public boolean alive() {
                return channel.isOpen();
            }

            @Override
            public void leave() {
                try {
                    if (channel.isOpen()) {
                        channel.close(); // what it left unacknowledged goes back to the queue
                    }
                } catch (Exception e) {
                    // closed already
                }
            }
        };
    }

    private static int event(Delivery delivery) {
        return Integer.parseInt(new String(delivery.getBody(), StandardCharsets.UTF_8));
    }

    /**
     * Every message acknowledged: as many acknowledgements as messages published, and none left in
     * the queue (a message whose acknowledgement was lost with its channel comes back and is
     * acknowledged again as a duplicate, so the count may pass the number published).
     */
    @Override
    public boolean drained() throws Exception {
        long acknowledged = 0;
        for (InboxConsumer consumer : consumers) {
            acknowledged += consumer.counts().acknowledged();
        }
        if (acknowledged < published) {
            return false;
        }
        try (Channel probe = connection.createChannel()) {
            if (probe.messageCount(queue) > 0) {
                return false;
            }
        }
        TimeUnit.MILLISECONDS.sleep(200); // a requeue in flight shows up by then
        try (Channel probe = connection.createChannel()) {
            return probe.messageCount(queue) == 0;
        }
    }

    @Override
    public long[] duplicatesAndBusy() {
        long duplicates = 0;
        long busy = 0;
        for (InboxConsumer consumer : consumers) {
            duplicates += consumer.counts().duplicates();
            busy += consumer.counts().busy();
        }
        return new long[] {duplicates, busy};
    }

    @Override
    public void close() throws Exception {
        try (Channel cleanup = connection.createChannel()) {
            cleanup.queueDelete(queue);
        } finally {
            connection.close(5_000);
        }
    }
}
