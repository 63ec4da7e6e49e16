package dev.inbox.benchmarks.jmh;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.KafkaInboxLoop;
import dev.inbox.kafka.RecordKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Where the Kafka loop's time goes per record on the embedded store, with the broker taken out:
 * a poll of 500 records from kafka-clients' own {@code MockConsumer} (in memory), consumed by the
 * bare loop (poll, work, {@code commitSync}) and by {@code KafkaInboxLoop} in lease mode, per
 * record and with per-poll completion; then each step of the loop's per-record path alone — the
 * key ({@code RecordKeys.cloudEvents()}), its validation ({@code InboxKey.of}), a claim and its
 * completion, and the same with {@code keepRenewed()}. Not a throughput figure for a consumer (the
 * broker's work is missing: {@code AdapterThroughput} measures that through a real broker), but
 * the adapter's own CPU cost, split into its parts, on a new store every iteration. Average time per operation (a poll benchmark's operation is a poll of 500 records), and with
 * {@code -prof gc} the bytes allocated per operation.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar AdapterPathBenchmark -prof gc -rf json -rff benchmarks/results/adapter-path.json
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class AdapterPathBenchmark {

    static final int POLL = 500;
    private static final TopicPartition PARTITION = new TopicPartition("bench", 0);

    private CaffeineInboxStore store;
    private Inbox inbox;
    private MockConsumer<String, String> bareConsumer;
    private MockConsumer<String, String> loopConsumer;
    private MockConsumer<String, String> perPollConsumer;
    private KafkaInboxLoop<String, String> loop;
    private KafkaInboxLoop<String, String> perPollLoop;
    private final RecordKeys keys = RecordKeys.cloudEvents();
    private final String run = UUID.randomUUID().toString();
    private long sequence;
    private long offsetBare;
    private long offsetLoop;
    private long offsetPerPoll;
    private long sink;
    private ConsumerRecord<String, String> sample;
    private String sampleId;

    @Setup(Level.Trial)
    public void setUp() {
        bareConsumer = consumer();
        loopConsumer = consumer();
        perPollConsumer = consumer();
        sample = record(0, sequence++);
        sampleId = keys.keyOf(sample);
    }

    /**
     * A new store for every iteration: it never holds more than one iteration's keys (a store that
     * grew by millions of keys over the run would measure its growth, and one bounded below that
     * would evict live records, which it logs).
     */
    @Setup(Level.Iteration)
    public void newStore() {
        store = CaffeineInboxStore.builder().maximumSize(20_000_000).build();
        inbox = Inbox.builder(store)
                .consumer("adapter-path-" + run)
                .lease(Duration.ofMinutes(5))
                .retention(Duration.ofHours(1))
                .build();
        loop = KafkaInboxLoop.lease(loopConsumer, inbox, record -> work(record.value()))
                .keys(keys)
                .build();
        perPollLoop = KafkaInboxLoop.lease(perPollConsumer, inbox, record -> work(record.value()))
                .keys(keys)
                .completePerPoll()
                .build();
    }

    @TearDown(Level.Iteration)
    public void closeStore() {
        store.close();
    }

    private static MockConsumer<String, String> consumer() {
        MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
        consumer.assign(List.of(PARTITION));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        return consumer;
    }

    private ConsumerRecord<String, String> record(long offset, long event) {
        ConsumerRecord<String, String> record =
                new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset, null, Long.toString(event));
        record.headers().add("ce_id", (run + "-" + event).getBytes(StandardCharsets.UTF_8));
        record.headers().add("ce_source", "/bench".getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private void work(String value) {
        sink += Long.parseLong(value);
    }

    /** Adds a poll of 500 new events to {@code consumer} from {@code offset}; returns the next offset. */
    private long fill(MockConsumer<String, String> consumer, long offset) {
        for (int i = 0; i < POLL; i++) {
            consumer.addRecord(record(offset + i, sequence++));
        }
        return offset + POLL;
    }

    /** The bare loop: a poll of 500, the work for each, one {@code commitSync}. */
    @Benchmark
    public long pollBare() {
        offsetBare = fill(bareConsumer, offsetBare);
        ConsumerRecords<String, String> records = bareConsumer.poll(Duration.ZERO);
        for (ConsumerRecord<String, String> record : records) {
            work(record.value());
        }
        bareConsumer.commitSync();
        return sink;
    }

    /** {@code KafkaInboxLoop} in lease mode on the embedded store: a poll of 500 new events. */
    @Benchmark
    public int pollInbox() {
        offsetLoop = fill(loopConsumer, offsetLoop);
        return loop.pollOnce(Duration.ZERO);
    }

    /** The same with {@code completePerPoll()}. */
    @Benchmark
    public int pollInboxPerPoll() {
        offsetPerPoll = fill(perPollConsumer, offsetPerPoll);
        return perPollLoop.pollOnce(Duration.ZERO);
    }

    /** Per record: the dedup key from the CloudEvents headers. */
    @Benchmark
    public String recordKey() {
        return keys.keyOf(sample);
    }

    /** Per record: the key's validation, as the loop checks it before the claim. */
    @Benchmark
    public InboxKey validate() {
        return InboxKey.of(inbox.consumer(), sampleId);
    }

    /** Per record: a claim of a new event and its completion. */
    @Benchmark
    public boolean claimComplete() {
        Claim claim = inbox.claims().claim(run + "-c-" + sequence++);
        return claim.complete();
    }

    /** Per record: the same with the lease kept renewed in between, as the loop does. */
    @Benchmark
    public boolean claimRenewComplete(Blackhole blackhole) {
        Claim claim = inbox.claims().claim(run + "-r-" + sequence++);
        blackhole.consume(claim.keepRenewed());
        return claim.complete();
    }

    /**
     * How a poll's claims are kept renewed: {@code each} with a renewal task of its own ({@code
     * claim.keepRenewed()} per claim, the Kafka loop before {@code keepRenewed(claims)}), {@code
     * together} with one task for the poll ({@code claims.keepRenewed(claimed)}, the loop now).
     */
    @Param({"each", "together"})
    public String renewal;

    /**
     * A batch of 500 claims in one {@code claimAll}, kept renewed as {@link #renewal} says, each
     * completed: the loop's store calls for a poll.
     */
    @Benchmark
    public int claimAllRenewComplete() {
        List<String> ids = new ArrayList<>(POLL);
        for (int i = 0; i < POLL; i++) {
            ids.add(run + "-b-" + sequence++);
        }
        List<Claim> claimed = inbox.claims().claimAll(ids);
        if (renewal.equals("together")) {
            inbox.claims().keepRenewed(claimed);
        }
        int completed = 0;
        for (Claim claim : claimed) {
            if (renewal.equals("each")) {
                claim.keepRenewed();
            }
            completed += claim.complete() ? 1 : 0;
        }
        return completed;
    }
}
