package dev.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxKey;
import dev.inbox.spi.DeliveryCounts;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link InboxConsumer}'s keys: each delivery's dedup key from its {@link MessageKeys}, and what a
 * delivery without a usable one comes to ({@link KeylessMessages}) — never processed without
 * deduplication: held unacknowledged until the consumer stops, or rejected to the queue's
 * dead-letter exchange.
 */
final class DeliveryKeys {

    private static final System.Logger LOG = System.getLogger(DeliveryKeys.class.getName());

    private final String consumer;
    private final MessageKeys keys;
    private final KeylessMessages keyless;
    private final Acknowledgements acknowledgements;
    private final DeliveryCounts counts;
    /** Delivery tags of keyless messages held ({@link KeylessMessages#HOLD}), requeued by {@link #handBack}. */
    private final Set<Long> held = ConcurrentHashMap.newKeySet();

    DeliveryKeys(
            String consumer,
            MessageKeys keys,
            KeylessMessages keyless,
            Acknowledgements acknowledgements,
            DeliveryCounts counts) {
        this.consumer = consumer;
        this.keys = keys;
        this.keyless = keyless;
        this.acknowledgements = acknowledgements;
        this.counts = counts;
    }

    /**
     * The delivery's dedup key, or null once a delivery without a usable one (none, the key function
     * threw, or not a valid key) was set aside: held, or rejected to the dead-letter exchange.
     */
    @Nullable
    String keyOrSetAside(Delivery delivery) throws IOException {
        String key;
        RuntimeException keyProblem = null;
        try {
            key = keys.keyOf(delivery);
            if (key != null) {
                InboxKey.of(consumer, key); // an invalid key (over 512 bytes…) is no key
            }
        } catch (RuntimeException invalid) {
            key = null;
            keyProblem = invalid;
        }
        if (key == null) {
            setAside(delivery, keyProblem);
        }
        return key;
    }

    private void setAside(Delivery delivery, @Nullable RuntimeException keyProblem) throws IOException {
        boolean hold = keyless == KeylessMessages.HOLD;
        LOG.log(
                hold ? System.Logger.Level.ERROR : System.Logger.Level.WARNING,
                "message without a usable dedup key "
                        + (hold
                                ? "held unacknowledged, never applied (requeued when the consumer stops; choose"
                                        + " keylessMessages(DEAD_LETTER) for a queue with a dead-letter exchange)"
                                : "rejected to the queue's dead-letter exchange")
                        + ": " + delivery.getEnvelope()
                        + (keyProblem == null ? "" : ": " + keyProblem)
                        + "; give every message the producer's event id: the message-id property (Spring's"
                        + " RabbitTemplate sets one when its MessageConverter has setCreateMessageIds(true)),"
                        + " or a header your MessageKeys read",
                keyProblem);
        if (hold) {
            held.add(delivery.getEnvelope().getDeliveryTag()); // in windows, its tag stays unsettled
        } else {
            counts.record(DeliveryOutcome.DEAD_LETTERED);
            acknowledgements.reject(delivery.getEnvelope().getDeliveryTag(), false);
        }
    }

    /** The consumer stops: the keyless deliveries held go back to the queue, to a consumer that may read their key. */
    void handBack(boolean channelOpen) throws IOException {
        for (long tag : held) {
            if (channelOpen) {
                acknowledgements.nack(tag, true);
            }
        }
        held.clear();
    }
}
