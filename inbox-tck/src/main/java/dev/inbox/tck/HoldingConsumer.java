package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;

/**
 * The consumer process of {@link ConsumerProcessContract}: claims its keys in one transaction,
 * writes their business rows, prints {@value #HOLDING} and then holds the transaction open until
 * it is killed. Not an API: the kit starts it with {@link JvmProcess}.
 */
public final class HoldingConsumer {

    /** The line printed once every key is claimed and written, uncommitted. */
    public static final String HOLDING = "HOLDING";

    private HoldingConsumer() {}

    /**
     * Arguments: the {@link TransactionalStoreFactory} class, the JDBC URL, the consumer, then the
     * keys.
     */
    public static void main(String[] args) throws Exception {
        TransactionalStoreFactory factory = (TransactionalStoreFactory)
                Class.forName(args[0]).getDeclaredConstructor().newInstance();
        String url = args[1];
        String consumer = args[2];
        TransactionalInboxStore store = factory.create(url);
        Connection c = DriverManager.getConnection(url);
        c.setAutoCommit(false);
        for (int i = 3; i < args.length; i++) {
            InboxKey key = InboxKey.of(consumer, args[i]);
            ClaimResult result = store.claimInTransaction(c, key, Duration.ofMinutes(10), null);
            if (!result.isAcquired()) {
                throw new IllegalStateException(key + " was " + result + " in the consumer process");
            }
            BusinessTable.insert(c, consumer + "/" + args[i] + "/process");
        }
        System.out.println(HOLDING);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
