package dev.inbox.benchmarks.storm;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.KafkaShareInboxLoop;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.postgres.PostgresInboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * One member of {@link ShareStorm}'s share group, as a process: {@link KafkaShareInboxLoop} on
 * PostgreSQL writing one ledger row per event it applies — in the claim's transaction
 * ({@code transactional}), or on its own before the claim is completed ({@code lease}). Each
 * application writes its row first and then pauses up to {@code --work-ms}, so a kill finds work
 * between the write and the acknowledgement. Runs until it is killed.
 *
 * <pre>{@code
 * java -cp benchmarks.jar dev.inbox.benchmarks.storm.ShareStormMember --bootstrap HOST:PORT \
 *     --topic T --group G --table LEDGER --consumer NAME --incarnation N \
 *     [--mode transactional|lease] [--work-ms 10] [--lease-ms 2000] [--jdbc-url URL]
 * }</pre>
 */
public final class ShareStormMember {

    /** At most this many records in a member's hand: a kill raises each one's delivery count. */
    static final int IN_HAND = 10;

    private ShareStormMember() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = StormArgs.parse(argv);
        String table = StormArgs.tableName(StormArgs.required(args, "table"));
        int incarnation = StormArgs.number(args, "incarnation", 1, 1);
        int workMs = StormArgs.number(args, "work-ms", 10, 0);
        boolean transactional = StormArgs.transactional(args.getOrDefault("mode", "transactional"));
        String consumerName = StormArgs.required(args, "consumer");

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.getOrDefault("jdbc-url", ShareStorm.DEFAULT_JDBC_URL));
        config.setMaximumPoolSize(4);
        HikariDataSource pool = new HikariDataSource(config);
        PostgresInboxStore store = PostgresInboxStore.builder(pool).build();
        String insert = "INSERT INTO " + table + " (event, incarnation) VALUES (?, ?)";

        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(KafkaClients.shareMemberConfig(
                StormArgs.required(args, "bootstrap"), StormArgs.required(args, "group"), IN_HAND));
        KafkaShareInboxLoop.Builder<String, String> builder;
        if (transactional) {
            TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                    .consumer(consumerName)
                    .build();
            builder = KafkaShareInboxLoop.transactional(
                    consumer, inbox, (record, connection) -> apply(record, connection, insert, incarnation, workMs));
        } else {
            Inbox inbox = Inbox.builder(store)
                    .consumer(consumerName)
                    .lease(Duration.ofMillis(StormArgs.number(args, "lease-ms", 2000, 1)))
                    .build();
            builder = KafkaShareInboxLoop.lease(consumer, inbox, record -> {
                try (Connection connection = pool.getConnection()) {
                    apply(record, connection, insert, incarnation, workMs);
                }
            });
        }
        KafkaShareInboxLoop<String, String> loop = builder.keys(RecordKeys.cloudEvents())
                .busyBackoff(Duration.ofMillis(20))
                .failureBackoff(Duration.ofMillis(20))
                .build();
        loop.subscribe(List.of(StormArgs.required(args, "topic")));
        System.out.println(
                "MEMBER " + incarnation + " pid " + ProcessHandle.current().pid());
        loop.run(Duration.ofMillis(100));
    }

    private static void apply(
            ConsumerRecord<String, String> record, Connection connection, String insert, int incarnation, int workMs)
            throws SQLException, InterruptedException {
        try (PreparedStatement statement = connection.prepareStatement(insert)) {
            statement.setInt(1, Integer.parseInt(record.value()));
            statement.setInt(2, incarnation);
            statement.executeUpdate();
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(workMs + 1)); // the rest of the work
    }
}
