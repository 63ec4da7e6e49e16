package dev.inbox.tck;

import dev.inbox.Claim;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.KafkaBroker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The adapter kit's Kafka reference adapter: the simplest correct lease-mode poll loop on the real
 * broker, following the outcome table, and the ways Kafka lets it go wrong ({@link Breakage}) for
 * the kit's self-tests. A topic of two partitions and one consumer group; each record is claimed,
 * worked (its claim renewed meanwhile) and completed in order, and its offset committed after it is
 * settled. A BUSY record and a claim the store cannot answer are waited for in place (head of line);
 * work that threw releases its claim, and the partition is sought back to the record after the
 * back-off; an {@code Error} releases the claim, seeks back and ends the loop by a throw (the harness
 * starts a new one, as a supervised consumer would be). The inbox tries a completion once ({@code
 * claimAttempts(1)}): retrying one that failed is this adapter's own job, so rule A13 in lease mode
 * tests the adapter, not the inbox.
 */
final class ReferenceKafkaHarness extends KafkaReference {

    /** One thing the reference adapter gets wrong, or nothing. */
    enum Breakage {
        NONE,
        /** Commits past a record whose work threw an {@code Exception}: it is never tried again. */
        COMMITS_PAST_FAILED_WORK,
        /** Commits past a BUSY record instead of waiting for its holder. */
        COMMITS_PAST_BUSY,
        /** Catches an {@code Error} from the work and goes on with the next record, without seeking back. */
        NO_SEEK_AFTER_AN_ERROR,
        /** Tries a completion once: one that fails leaves the claim held, and the record is committed. */
        NO_COMPLETION_RETRY
    }

    /** How often the reference tries a completion before it commits past it all the same. */
    private static final int COMPLETION_ATTEMPTS = 3;

    private final Breakage breakage;

    ReferenceKafkaHarness(AdapterKit kit, Breakage breakage) throws Exception {
        super(kit);
        this.breakage = breakage;
    }

    @Override
    public Running start() {
        Member member = new Member();
        member.thread.start();
        return member;
    }

    private KafkaConsumer<String, String> newConsumer() {
        Map<String, Object> config = KafkaBroker.consumerConfig(group);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        return new KafkaConsumer<>(config);
    }

    /**
     * One member of the group: a thread that runs a poll loop on a consumer of its own, and a new one
     * when a loop ends by a throw.
     */
    private final class Member implements Running {
        final Thread thread = new Thread(this::supervise, "adapter-kit-kafka-reference");
        volatile boolean stopping;
        volatile boolean crashed;
        volatile @Nullable KafkaConsumer<String, String> current;

        Member() {
            thread.setDaemon(true);
        }

        private void supervise() {
            while (!stopping && !crashed) {
                KafkaConsumer<String, String> consumer = newConsumer();
                current = consumer;
                try {
                    new Loop(outage.kafkaConsumer(Consumer.class, consumer)).run();
                } catch (Throwable thrown) {
                    // supervised: a loop that ended by a throw (an Error from the work) is replaced
                } finally {
                    if (!crashed) {
                        try {
                            consumer.close(); // its rebalance listener commits what is settled
                        } catch (RuntimeException closing) {
                            // gone with the loop
                        }
                    }
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopping = true;
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }

        /**
         * From the work (the loop's own thread): the consumer is closed at once, its rebalance callback
         * skipped, so nothing more is committed. From another thread: woken and closed the same way.
         */
        @Override
        public void crash() throws InterruptedException {
            crashed = true;
            KafkaConsumer<String, String> consumer = current;
            if (Thread.currentThread() == thread) {
                if (consumer != null) {
                    consumer.close(Duration.ZERO);
                }
                return;
            }
            if (consumer != null) {
                consumer.wakeup();
            }
            thread.join(TimeUnit.SECONDS.toMillis(60));
            if (consumer != null) {
                consumer.close(Duration.ZERO);
            }
        }

        @Override
        public void cutConnection() {
            outage.begin();
        }

        @Override
        public void restoreConnection() {
            outage.end();
        }

        /** One poll loop on one consumer. */
        private final class Loop {
            final Consumer<String, String> consumer;
            /** Offsets of settled records whose commit failed (the broker unreachable), committed again later. */
            final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();

            Loop(Consumer<String, String> consumer) {
                this.consumer = consumer;
            }

            void run() {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!crashed) {
                            commitPending(); // a killed process runs no callbacks
                        }
                        uncommitted.keySet().removeAll(partitions);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
                });
                while (!stopping && !crashed) {
                    commitPending();
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    for (TopicPartition partition : records.partitions()) {
                        for (ConsumerRecord<String, String> record : records.records(partition)) {
                            if (stopping || crashed || !handle(partition, record)) {
                                break; // not begun, or sought back: the rest of the partition comes again
                            }
                        }
                    }
                }
                commitPending();
            }

            /** Settles one record; false when the partition was sought back to it (or the loop is ending). */
            private boolean handle(TopicPartition partition, ConsumerRecord<String, String> record) {
                String id = idOf(record);
                if (id == null) {
                    kit.deadLettered(record.value());
                    commit(partition, record);
                    return true;
                }
                Claim claim = claimHeld(id);
                if (claim == null) {
                    consumer.seek(partition, record.offset()); // stopping while waiting: not begun
                    return false;
                }
                if (claim.status() == ClaimStatus.DUPLICATE) {
                    commit(partition, record);
                    return true;
                }
                if (claim.status() == ClaimStatus.BUSY) { // only with COMMITS_PAST_BUSY
                    commit(partition, record);
                    return true;
                }
                claim.keepRenewed();
                try {
                    kit.apply(record.value(), null);
                } catch (Exception failed) {
                    claim.release();
                    if (breakage == Breakage.COMMITS_PAST_FAILED_WORK) {
                        commit(partition, record);
                        return true;
                    }
                    pause(kit.backoff());
                    consumer.seek(partition, record.offset());
                    return false;
                } catch (Error error) {
                    claim.release();
                    if (breakage == Breakage.NO_SEEK_AFTER_AN_ERROR) {
                        return true; // and the next record's commit passes this one
                    }
                    if (!crashed) {
                        consumer.seek(partition, record.offset());
                    }
                    throw error;
                }
                complete(claim);
                commit(partition, record);
                return true;
            }

            /**
             * Claims the event, waiting in place (at the back-off) while another delivery holds it or the
             * store cannot answer; null when the loop is ending meanwhile.
             */
            private @Nullable Claim claimHeld(String id) {
                while (!stopping && !crashed) {
                    try {
                        Claim claim = inbox.claims().claimAll(List.of(id)).get(0);
                        if (claim.status() != ClaimStatus.BUSY || breakage == Breakage.COMMITS_PAST_BUSY) {
                            return claim;
                        }
                    } catch (InboxStoreException storeDown) {
                        // waited for in place, as a BUSY one
                    }
                    pause(kit.backoff());
                }
                return null;
            }

            /** Records the work as done, tried {@value #COMPLETION_ATTEMPTS} times; the record is committed either way. */
            private void complete(Claim claim) {
                int attempts = breakage == Breakage.NO_COMPLETION_RETRY ? 1 : COMPLETION_ATTEMPTS;
                for (int attempt = 1; attempt <= attempts; attempt++) {
                    try {
                        claim.complete();
                        return;
                    } catch (InboxStoreException notRecorded) {
                        // tried again; past the attempts, the work is done and the lease bounds the window
                    }
                }
            }

            private void commit(TopicPartition partition, ConsumerRecord<String, String> record) {
                uncommitted.put(partition, new OffsetAndMetadata(record.offset() + 1));
                commitPending();
            }

            private void commitPending() {
                if (uncommitted.isEmpty() || crashed) {
                    return;
                }
                try {
                    consumer.commitSync(Map.copyOf(uncommitted));
                    uncommitted.clear();
                } catch (KafkaException unreachable) {
                    // kept, and committed again after the next poll
                }
            }
        }
    }
}
