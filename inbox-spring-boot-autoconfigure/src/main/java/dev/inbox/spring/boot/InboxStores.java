package dev.inbox.spring.boot;

import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.jdbc.JdbcStoreBuilder;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.redis.RedisKeyLayout;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.boot.InboxProperties.StoreKind;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Builds the store {@code inbox.store} names, or, for {@code AUTO}, the one the context's beans
 * call for. Each store module is optional: its classes are only touched when it is chosen.
 */
final class InboxStores {

    private static final Log log = LogFactory.getLog(InboxStores.class);

    static final String MEMORY_WARNING = "inbox: no DataSource, Redis client or DynamoDbClient for a store module on"
            + " the class path, so records are kept in this JVM's memory (inbox-caffeine). They are lost on"
            + " restart and not shared with other instances: not for a fleet. Add inbox-postgres, inbox-mysql,"
            + " inbox-redis or inbox-dynamodb, or set inbox.store=memory to say you mean it.";

    private final InboxProperties properties;
    private final ListableBeanFactory beans;
    private final ClassLoader classLoader;

    InboxStores(InboxProperties properties, ListableBeanFactory beans, @Nullable ClassLoader classLoader) {
        this.properties = properties;
        this.beans = beans;
        this.classLoader = classLoader == null ? InboxStores.class.getClassLoader() : classLoader;
    }

    InboxStore create() {
        StoreKind kind = properties.getStore() == StoreKind.AUTO ? choose() : properties.getStore();
        require(kind);
        InboxStore store;
        try {
            store = switch (kind) {
                case POSTGRES -> Postgres.create(properties, dataSource(kind));
                case MYSQL -> Mysql.create(properties, dataSource(kind));
                case REDIS -> Redis.create(properties, beans);
                case DYNAMODB -> Dynamo.create(properties, beans);
                default -> Memory.create(properties);
            };
        } catch (InboxStoreException failure) { // a store that asks its server while it is built
            throw InboxStoreCheck.explain("the " + kind.name().toLowerCase() + " inbox store", failure, false);
        }
        log.info("inbox: " + store + " (inbox.store="
                + properties.getStore().name().toLowerCase() + ")");
        return store;
    }

    /** The store {@code AUTO} stands for, given the beans and modules present. */
    StoreKind choose() {
        if (present("dev.inbox.postgres.PostgresInboxStore") || present("dev.inbox.mysql.MysqlInboxStore")) {
            DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
            if (dataSource != null) {
                String product = product(dataSource);
                if (product.equals("PostgreSQL") && present("dev.inbox.postgres.PostgresInboxStore")) {
                    return StoreKind.POSTGRES;
                }
                if ((product.equals("MySQL") || product.equals("MariaDB"))
                        && present("dev.inbox.mysql.MysqlInboxStore")) {
                    return StoreKind.MYSQL;
                }
                log.info("inbox: the DataSource is " + product + ", which no store module on the class path serves");
            }
        }
        if (present("dev.inbox.redis.RedisInboxStore")
                && (Redis.hasClient(beans) || properties.getRedis().getUrl() != null)) {
            return StoreKind.REDIS;
        }
        if (present("dev.inbox.dynamodb.DynamoDbInboxStore") && Dynamo.hasClient(beans)) {
            return StoreKind.DYNAMODB;
        }
        if (present("dev.inbox.caffeine.CaffeineInboxStore")) {
            log.warn(MEMORY_WARNING);
            return StoreKind.MEMORY;
        }
        throw new IllegalStateException("inbox: no store. Add a store module (inbox-postgres or inbox-mysql with a"
                + " DataSource, inbox-redis with a Lettuce client or inbox.redis.url, inbox-dynamodb with a"
                + " DynamoDbClient, or inbox-caffeine) and its client, or set inbox.store");
    }

    private void require(StoreKind kind) {
        String[] module = switch (kind) {
            case POSTGRES -> new String[] {"dev.inbox.postgres.PostgresInboxStore", "inbox-postgres"};
            case MYSQL -> new String[] {"dev.inbox.mysql.MysqlInboxStore", "inbox-mysql"};
            case REDIS -> new String[] {"dev.inbox.redis.RedisInboxStore", "inbox-redis"};
            case DYNAMODB -> new String[] {"dev.inbox.dynamodb.DynamoDbInboxStore", "inbox-dynamodb"};
            default -> new String[] {"dev.inbox.caffeine.CaffeineInboxStore", "inbox-caffeine"};
        };
        if (!present(module[0])) {
            throw new IllegalStateException("inbox.store=" + kind.name().toLowerCase() + " needs the module "
                    + module[1] + " on the class path");
        }
    }

    private DataSource dataSource(StoreKind kind) {
        return unique(beans, DataSource.class, kind);
    }

    static <T> T unique(ListableBeanFactory beans, Class<T> type, StoreKind kind) {
        T bean = beans.getBeanProvider(type).getIfUnique();
        if (bean == null) {
            throw new IllegalStateException("inbox.store=" + kind.name().toLowerCase() + " needs one "
                    + type.getSimpleName() + " bean, and the context has "
                    + beans.getBeanNamesForType(type).length);
        }
        return bean;
    }

    private boolean present(String className) {
        return ClassUtils.isPresent(className, classLoader);
    }

    private static String product(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw InboxStoreCheck.unreachable(
                    "the DataSource, asked which database it is to choose the inbox store,",
                    e,
                    " Or set inbox.store (postgres or mysql) so that the starter need not ask; with"
                            + " inbox.check-store=false too, the application then starts without the database:"
                            + " the health indicator reports the store DOWN, and messages wait, unacknowledged,"
                            + " until it answers.");
        }
    }

    /**
     * One class per store module: the JVM verifies a class against every type its methods use, so a
     * class that named both SQL stores would fail to load without either module.
     */
    private static final class Postgres {

        static InboxStore create(InboxProperties properties, DataSource dataSource) {
            PostgresInboxStore store = Jdbc.configure(PostgresInboxStore.builder(dataSource), properties)
                    .build();
            if (properties.isCreateSchema()) {
                store.createSchemaIfMissing();
            }
            return store;
        }
    }

    private static final class Mysql {

        static InboxStore create(InboxProperties properties, DataSource dataSource) {
            MysqlInboxStore store = Jdbc.configure(MysqlInboxStore.builder(dataSource), properties)
                    .build();
            if (properties.isCreateSchema()) {
                store.createSchemaIfMissing();
            }
            return store;
        }
    }

    /** What both SQL stores' builders take from the properties (inbox-jdbc is always present). */
    private static final class Jdbc {

        static <B extends JdbcStoreBuilder<B>> B configure(B builder, InboxProperties properties) {
            InboxProperties.Jdbc jdbc = properties.getJdbc();
            if (jdbc.getSchema() != null) {
                builder.schema(jdbc.getSchema());
            }
            if (jdbc.getTable() != null) {
                builder.table(jdbc.getTable());
            }
            if (properties.getGrace() != null) {
                builder.grace(properties.getGrace());
            }
            return builder.purgeNiceRatio(properties.getPurge().getNiceRatio());
        }
    }

    private static final class Redis {

        static boolean hasClient(ListableBeanFactory beans) {
            return beans.getBeanNamesForType(RedisClient.class).length > 0
                    || beans.getBeanNamesForType(RedisClusterClient.class).length > 0;
        }

        static InboxStore create(InboxProperties properties, ListableBeanFactory beans) {
            RedisInboxStore.Builder builder;
            RedisClient client = beans.getBeanProvider(RedisClient.class).getIfUnique();
            RedisClusterClient cluster =
                    beans.getBeanProvider(RedisClusterClient.class).getIfUnique();
            if (client != null) {
                builder = RedisInboxStore.builder(client);
            } else if (cluster != null) {
                builder = RedisInboxStore.builder(cluster);
            } else if (properties.getRedis().getUrl() != null) {
                builder = RedisInboxStore.builder(
                        RedisURI.create(properties.getRedis().getUrl()));
            } else {
                throw new IllegalStateException("inbox.store=redis needs one Lettuce RedisClient or"
                        + " RedisClusterClient bean, or inbox.redis.url");
            }
            if (properties.getRedis().getPrefix() != null) {
                builder.prefix(properties.getRedis().getPrefix());
            }
            if ("consumer-slot".equals(properties.getRedis().getKeyLayout())) {
                builder.keyLayout(RedisKeyLayout.CONSUMER_SLOT);
            }
            builder.plainNewKeyClaims(properties.getRedis().isPlainNewKeyClaims());
            if (properties.getGrace() != null) {
                builder.grace(properties.getGrace());
            }
            if (properties.getRedis().getWaitForReplicas() > 0) {
                builder.waitForReplicas(
                        properties.getRedis().getWaitForReplicas(),
                        properties.getRedis().getWaitTimeout());
            }
            RedisInboxStore store = builder.build();
            store.checkPersistence(properties.getRetention()); // warns when a restart would lose the records
            return store;
        }
    }

    private static final class Dynamo {

        static boolean hasClient(ListableBeanFactory beans) {
            return beans.getBeanNamesForType(DynamoDbClient.class).length > 0;
        }

        static InboxStore create(InboxProperties properties, ListableBeanFactory beans) {
            DynamoDbClient client = unique(beans, DynamoDbClient.class, StoreKind.DYNAMODB);
            DynamoDbInboxStore.Builder builder = DynamoDbInboxStore.builder(client);
            if (properties.getDynamodb().getTable() != null) {
                builder.table(properties.getDynamodb().getTable());
            }
            if (properties.getGrace() != null) {
                builder.grace(properties.getGrace());
            }
            DynamoDbInboxStore store = builder.build();
            if (properties.isCreateSchema()) {
                store.createTableIfMissing();
            }
            store.checkTable(); // refuses an eventually consistent global table
            return store;
        }
    }

    private static final class Memory {

        static InboxStore create(InboxProperties properties) {
            CaffeineInboxStore.Builder builder = CaffeineInboxStore.builder();
            if (properties.getGrace() != null) {
                builder.grace(properties.getGrace());
            }
            return builder.build();
        }
    }
}
