package dev.inbox.rabbitmq;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import org.jspecify.annotations.Nullable;

/**
 * How {@link InboxConsumer} settles its deliveries on its channel — acknowledged, requeued or
 * rejected — and, for a consumer that handles windows, which of its delivery tags are still
 * unsettled, so that a window's done deliveries are acknowledged with one {@code basicAck(last,
 * multiple=true)} only where that settles exactly them: nothing of this consumer held (a BUSY or
 * keyless delivery, one waiting for its requeue), nothing of another consumer on the same channel.
 *
 * <p>Delivery tags are numbered per channel from 1 (amqp-client's recovery carries the numbering
 * on), so while every tag this consumer received follows the one before, no other consumer
 * received one in between; after the first gap the channel counts as shared and every
 * acknowledgement is single.
 */
final class Acknowledgements {

    private final Channel channel;
    /** The unsettled tags of a windowed consumer; null without windows. */
    private final @Nullable ConcurrentSkipListSet<Long> unsettled;

    private long last;
    private boolean shared;

    Acknowledgements(Channel channel, boolean windows) {
        this.channel = channel;
        this.unsettled = windows ? new ConcurrentSkipListSet<>() : null;
    }

    /** A delivery arrived for a window; called holding the consumer's lock. */
    void received(long tag) {
        if (unsettled == null) {
            return;
        }
        if (tag != last + 1) {
            shared = true;
        }
        last = tag;
        unsettled.add(tag);
    }

    void ack(long tag) throws IOException {
        channel.basicAck(tag, false);
        settled(tag);
    }

    void nack(long tag, boolean requeue) throws IOException {
        channel.basicNack(tag, false, requeue);
        settled(tag);
    }

    void reject(long tag, boolean requeue) throws IOException {
        channel.basicReject(tag, requeue);
        settled(tag);
    }

    /**
     * Acknowledges a window's done deliveries, {@code tags} in ascending order: with one {@code
     * multiple} acknowledgement when that settles exactly them, else one by one. Called holding the
     * consumer's lock.
     */
    void ackAll(List<Long> tags) throws IOException {
        if (tags.isEmpty()) {
            return;
        }
        if (coversExactly(tags)) {
            long through = tags.get(tags.size() - 1);
            channel.basicAck(through, true);
            unsettled.headSet(through, true).clear();
            return;
        }
        for (long tag : tags) {
            ack(tag);
        }
    }

    /** True when the unsettled tags up to the last of {@code ascending} are exactly those. */
    boolean coversExactly(List<Long> ascending) {
        return unsettled != null
                && !shared
                && unsettled.headSet(ascending.get(ascending.size() - 1), true).size() == ascending.size();
    }

    private void settled(long tag) {
        if (unsettled != null) {
            unsettled.remove(tag);
        }
    }
}
