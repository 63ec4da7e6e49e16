package dev.inbox.kafka;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Where {@link KafkaInboxLoop}'s partitions stand between polls, kept on its consumer: which are
 * paused and until when (a record found BUSY, failed work, a store outage — each partition waits
 * alone while the others go on), and which done offsets a failed commit left to commit. A commit
 * that fails because the group rebalanced is kept and tried again at the next poll and when the
 * partition is revoked; a partition revoked or lost is forgotten.
 *
 * <p>Not thread-safe, like the consumer: used from the consumer's thread, the rebalance listener
 * included (the consumer calls it from {@code poll}).
 */
final class PartitionPositions {

    private static final System.Logger LOG = System.getLogger(KafkaInboxLoop.class.getName());

    private final Consumer<?, ?> consumer;
    private final Map<TopicPartition, Long> pausedUntilNanos = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();

    PartitionPositions(Consumer<?, ?> consumer) {
        this.consumer = consumer;
    }

    /**
     * Seeks {@code partition} back to {@code offset}, the first record not done, and pauses it for
     * {@code backoff}.
     */
    void giveBack(TopicPartition partition, long offset, Duration backoff) {
        consumer.seek(partition, offset);
        pause(partition, backoff);
    }

    /** Pauses {@code partition} until {@code backoff} from now; {@link #resumeDue()} resumes it. */
    void pause(TopicPartition partition, Duration backoff) {
        pausedUntilNanos.put(partition, System.nanoTime() + backoff.toNanos());
        consumer.pause(Set.of(partition));
    }

    /** Before a poll: resumes the partitions whose pause is over, and commits what a failed commit left. */
    void beforePoll() {
        resumeDue();
        commitLeftOver();
    }

    /** Commits the offsets a failed commit left; nothing when none. */
    void commitLeftOver() {
        if (!uncommitted.isEmpty()) {
            commit(Map.copyOf(uncommitted));
        }
    }

    /**
     * Commits {@code offsets} of done records ({@code commitSync}); kept for the next poll if the
     * commit fails.
     *
     * @throws WakeupException if the consumer was woken (the offsets stay to commit later)
     * @throws InterruptException if the thread was interrupted (likewise)
     */
    void commitDone(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (!offsets.isEmpty()) {
            uncommitted.putAll(offsets);
            commit(offsets);
        }
    }

    /**
     * The listener to subscribe with: on revocation it commits what a failed commit left behind,
     * and it forgets the revoked or lost partitions' pauses.
     */
    ConsumerRebalanceListener rebalanceListener() {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                Map<TopicPartition, OffsetAndMetadata> revoked = new HashMap<>();
                for (TopicPartition partition : partitions) {
                    OffsetAndMetadata offset = uncommitted.remove(partition);
                    if (offset != null) {
                        revoked.put(partition, offset);
                    }
                    pausedUntilNanos.remove(partition);
                }
                if (!revoked.isEmpty()) {
                    commit(revoked);
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                for (TopicPartition partition : partitions) {
                    uncommitted.remove(partition);
                    pausedUntilNanos.remove(partition);
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                // nothing is held between polls
            }
        };
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets);
            offsets.forEach(uncommitted::remove);
        } catch (WakeupException | InterruptException e) {
            throw e; // the caller woke or interrupted the consumer: the offsets stay uncommitted for later
        } catch (CommitFailedException e) {
            // The group rebalanced: another member may redeliver these records; they are DUPLICATE.
            LOG.log(Level.WARNING, "offsets " + offsets + " could not be committed; retried on the next poll", e);
        } catch (KafkaException e) {
            LOG.log(Level.WARNING, "offsets " + offsets + " could not be committed; retried on the next poll", e);
        }
    }

    private void resumeDue() {
        if (pausedUntilNanos.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        Set<TopicPartition> assigned = consumer.assignment();
        Set<TopicPartition> due = new HashSet<>();
        for (Iterator<Map.Entry<TopicPartition, Long>> it =
                        pausedUntilNanos.entrySet().iterator();
                it.hasNext(); ) {
            Map.Entry<TopicPartition, Long> paused = it.next();
            if (!assigned.contains(paused.getKey())) {
                it.remove();
            } else if (now - paused.getValue() >= 0) {
                due.add(paused.getKey());
                it.remove();
            }
        }
        if (!due.isEmpty()) {
            consumer.resume(due);
        }
    }
}
