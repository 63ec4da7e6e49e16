package dev.inbox.benchmarks.storm;

import dev.inbox.Deliveries;
import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.kafka.KafkaShareInboxLoop;
import dev.inbox.kafka.RecordKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * The storm through a Kafka share group: the Kafka storm's topic and records ({@link KafkaDriver}),
 * members consuming with {@link KafkaShareInboxLoop} in one share group, many members on each
 * partition. The group reads from the earliest offset, renews locks, archives a record at its fifth
 * delivery (the brokers' default), and holds records under a 2-s lock, so a crashed member's records
 * move on quickly (a broker of your own must allow it: {@code group.share.min.record.lock.duration.ms}). A crash throws out of the work; the member's
 * consumer is closed without acknowledging what it had in hand.
 */
final class KafkaShareDriver extends KafkaDriver {

    /** At most this many records in a member's hand: each crash raises their delivery counts. */
    private static final int IN_HAND = 10;

    /** The group's acquisition lock: a crashed member's records move on after it. */
    private static final long LOCK_MS = 2000;

    private final StormTarget target;
    private final String group = "inbox-storm-share-" + java.util.UUID.randomUUID();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder busy = new LongAdder();

    KafkaShareDriver(StormConfig config, StormTarget target) throws Exception {
        super(config, target);
        this.target = target;
        try {
            KafkaClients.configureShareGroup(bootstrap(), group, LOCK_MS);
        } catch (Exception e) {
            close();
            throw new IllegalStateException(
                    "cannot configure share group " + group + " (locks of " + LOCK_MS
                            + " ms need the broker's group.share.min.record.lock.duration.ms at most that; the broker"
                            + " started here has 1000): " + e.getMessage(),
                    e);
        }
    }

    @Override
    public String describe() {
        return super.describe() + ", share group";
    }

    @Override
    public Member join(Applier applier) {
        KafkaShareConsumer<String, String> consumer =
                new KafkaShareConsumer<>(KafkaClients.shareMemberConfig(bootstrap(), group, IN_HAND));
        KafkaShareInboxLoop.Builder<String, String> builder = target instanceof TransactionalTarget transactional
                ? KafkaShareInboxLoop.transactional(
                        consumer, transactional.inbox(), (record, c) -> applier.apply(event(record), c))
                : KafkaShareInboxLoop.lease(
                        consumer, ((LeaseTarget) target).inbox(), record -> applier.apply(event(record), null));
        KafkaShareInboxLoop<String, String> loop = builder.keys(RecordKeys.cloudEvents())
                .busyBackoff(Duration.ofMillis(20))
                .failureBackoff(Duration.ofMillis(20))
                .build();
        AtomicBoolean alive = new AtomicBoolean(true);
        AtomicBoolean leaving = new AtomicBoolean();
        Thread thread = new Thread(
                () -> {
                    boolean crashed = false;
                    try {
                        loop.subscribe(List.of(topic()));
                        while (!leaving.get()) {
                            loop.pollOnce(Duration.ofMillis(50));
                        }
                        loop.stop();
                        loop.run(Duration.ofMillis(50)); // finishes what is in hand, then returns
                    } catch (BrokerDriver.ConsumerCrash crash) {
                        crashed = true; // dies mid-work: what it holds is not acknowledged
                    } finally {
                        loop.close();
                        Deliveries counts = loop.counts();
                        duplicates.add(counts.duplicates());
                        busy.add(counts.busy());
                        consumer.close(Duration.ofSeconds(crashed ? 0 : 5));
                        alive.set(false);
                    }
                },
                "storm-kafka-share-member");
        thread.setDaemon(true);
        thread.start();
        return new Member() {
            @Override
            public boolean alive() {
                return alive.get();
            }

            @Override
            public void leave() {
                leaving.set(true);
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static int event(ConsumerRecord<String, String> record) {
        return Integer.parseInt(record.value());
    }

    /** Every partition's records are acknowledged: accepted (or archived, which the storm counts as lost). */
    @Override
    public boolean drained() throws Exception {
        return KafkaClients.shareGroupDrained(admin(), group, endOffsets());
    }

    @Override
    public long[] duplicatesAndBusy() {
        return new long[] {duplicates.sum(), busy.sum()};
    }
}
