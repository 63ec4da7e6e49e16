package dev.inbox.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code inbox.*} properties. Each setter checks its value, so a wrong one fails the startup
 * with a message that names the property.
 */
@ConfigurationProperties("inbox")
public class InboxProperties {

    /** Which store holds the inbox records. */
    public enum StoreKind {
        /** Chosen from the beans present: a DataSource, a Lettuce client, a DynamoDbClient, else memory. */
        AUTO,
        /** PostgreSQL, on the DataSource (module inbox-postgres). */
        POSTGRES,
        /** MySQL or MariaDB, on the DataSource (module inbox-mysql). */
        MYSQL,
        /** Redis, on the Lettuce RedisClient or RedisClusterClient bean, or inbox.redis.url (module inbox-redis). */
        REDIS,
        /** DynamoDB, on the DynamoDbClient bean (module inbox-dynamodb). */
        DYNAMODB,
        /** In this JVM's memory (module inbox-caffeine): for tests and single instances, never a fleet. */
        MEMORY
    }

    /** The store; AUTO chooses it from the beans present. */
    private StoreKind store = StoreKind.AUTO;

    /** The logical consumer whose events the records scope; default spring.application.name. */
    private @Nullable String consumer;

    /** How long a processed event suppresses its duplicates. */
    private Duration retention = Duration.ofHours(48);

    /** How long a lease-mode claim is held before another delivery may take the event over. */
    private Duration lease = Duration.ofMinutes(1);

    /** How long an expired record is kept to report late duplicates; default the store's own. */
    private @Nullable Duration grace;

    /**
     * How long work may hold its event before its claim is no longer renewed (a hung listener);
     * default an hour, or ten leases when that is longer.
     */
    private @Nullable Duration maxInHand;

    /**
     * Refuse a copy older than the retention by the broker's timestamp (Kafka record timestamp, AMQP
     * timestamp, SQS SentTimestamp) as EXPIRED: its record may be gone, so it goes to the listener's
     * dead-letter path like a message without a key, never applied. Applies to every listener's keys.
     */
    private boolean refuseExpiredCopies = false;

    /** Create the store's table (SQL, DynamoDB) at startup when it is missing. */
    private boolean createSchema = false;

    /**
     * Ask the store once at startup and fail the startup, naming the cause, when it does not answer
     * (a missing table, a server that cannot be reached).
     */
    private boolean checkStore = true;

    private final Jdbc jdbc = new Jdbc();
    private final Redis redis = new Redis();
    private final Dynamodb dynamodb = new Dynamodb();
    private final Purge purge = new Purge();
    private final KafkaListeners kafka = new KafkaListeners();
    private final RabbitListeners rabbit = new RabbitListeners();

    private final Listeners sqs = new Listeners("inbox.sqs");

    private final Http http = new Http();

    public StoreKind getStore() {
        return store;
    }

    public void setStore(StoreKind store) {
        this.store = store;
    }

    public @Nullable String getConsumer() {
        return consumer;
    }

    public void setConsumer(@Nullable String consumer) {
        this.consumer = consumer;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = atLeastASecond(retention, "inbox.retention");
    }

    public Duration getLease() {
        return lease;
    }

    public @Nullable Duration getMaxInHand() {
        return maxInHand;
    }

    public void setMaxInHand(@Nullable Duration maxInHand) {
        this.maxInHand = maxInHand == null ? null : atLeastASecond(maxInHand, "inbox.max-in-hand");
    }

    public boolean isRefuseExpiredCopies() {
        return refuseExpiredCopies;
    }

    public void setRefuseExpiredCopies(boolean refuseExpiredCopies) {
        this.refuseExpiredCopies = refuseExpiredCopies;
    }

    public void setLease(Duration lease) {
        this.lease = atLeastASecond(lease, "inbox.lease");
    }

    public @Nullable Duration getGrace() {
        return grace;
    }

    public void setGrace(@Nullable Duration grace) {
        if (grace != null && grace.isNegative()) {
            throw new IllegalArgumentException("inbox.grace must not be negative, but was " + grace);
        }
        this.grace = grace;
    }

    public boolean isCreateSchema() {
        return createSchema;
    }

    public void setCreateSchema(boolean createSchema) {
        this.createSchema = createSchema;
    }

    public boolean isCheckStore() {
        return checkStore;
    }

    public void setCheckStore(boolean checkStore) {
        this.checkStore = checkStore;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Redis getRedis() {
        return redis;
    }

    public Dynamodb getDynamodb() {
        return dynamodb;
    }

    public Purge getPurge() {
        return purge;
    }

    public KafkaListeners getKafka() {
        return kafka;
    }

    public Listeners getSqs() {
        return sqs;
    }

    public RabbitListeners getRabbit() {
        return rabbit;
    }

    public Http getHttp() {
        return http;
    }

    /**
     * A lease or retention: positive, and not below a second — a bare number ({@code inbox.lease=30})
     * is read as milliseconds, which no real lease or retention is.
     */
    static Duration atLeastASecond(@Nullable Duration value, String what) {
        positive(value, what);
        if (value.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException(what + " must be at least a second, but was " + value + " (a number"
                    + " without a unit is read as milliseconds: write " + what + "=30s, 10m or 7d)");
        }
        return value;
    }

    static Duration positive(@Nullable Duration value, String what) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, but was " + value);
        }
        return value;
    }

    /** The PostgreSQL and MySQL/MariaDB stores. */
    public static class Jdbc {

        /** The inbox table; default the store's own name. */
        private @Nullable String table;

        /** The schema (PostgreSQL) or database (MySQL) of the table; default the connection's. */
        private @Nullable String schema;

        public @Nullable String getTable() {
            return table;
        }

        public void setTable(@Nullable String table) {
            this.table = table;
        }

        public @Nullable String getSchema() {
            return schema;
        }

        public void setSchema(@Nullable String schema) {
            this.schema = schema;
        }
    }

    /** The Redis store. */
    public static class Redis {

        /** A redis:// URI of a standalone server, used when the context has no Lettuce client bean. */
        private @Nullable String url;

        /** The prefix of every key the store writes; default the store's own. */
        private @Nullable String prefix;

        /**
         * How many replicas must acknowledge each claim and completion (Redis WAIT) before the store
         * answers; 0, the default, waits for none. See {@code docs/redis.md}.
         */
        private int waitForReplicas;

        /** How long a write waits for those replicas before it fails, retryably. */
        private Duration waitTimeout = Duration.ofMillis(500);

        /**
         * How record keys are named: {@code spread} (the default: a hash tag per key, so a Redis
         * Cluster spreads each consumer over all its primaries) or {@code consumer-slot} (the layout
         * of inbox 0.1: a consumer's records in one slot). See {@code docs/redis.md} before changing it
         * on a running system.
         */
        private @Nullable String keyLayout;

        /**
         * Whether a claim first tries its key with one plain SET NX GET, no script (the default);
         * false while instances of an inbox snapshot from before this setting still claim on the
         * same keys. See {@code docs/redis.md}.
         */
        private boolean plainNewKeyClaims = true;

        public boolean isPlainNewKeyClaims() {
            return plainNewKeyClaims;
        }

        public void setPlainNewKeyClaims(boolean plainNewKeyClaims) {
            this.plainNewKeyClaims = plainNewKeyClaims;
        }

        public @Nullable String getKeyLayout() {
            return keyLayout;
        }

        public void setKeyLayout(@Nullable String keyLayout) {
            if (keyLayout != null && !keyLayout.equals("spread") && !keyLayout.equals("consumer-slot")) {
                throw new IllegalArgumentException(
                        "inbox.redis.key-layout must be spread or consumer-slot, but was " + keyLayout);
            }
            this.keyLayout = keyLayout;
        }

        public int getWaitForReplicas() {
            return waitForReplicas;
        }

        public void setWaitForReplicas(int waitForReplicas) {
            if (waitForReplicas < 0) {
                throw new IllegalArgumentException(
                        "inbox.redis.wait-for-replicas must not be negative, but was " + waitForReplicas);
            }
            this.waitForReplicas = waitForReplicas;
        }

        public Duration getWaitTimeout() {
            return waitTimeout;
        }

        public void setWaitTimeout(Duration waitTimeout) {
            this.waitTimeout = positive(waitTimeout, "inbox.redis.wait-timeout");
        }

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getPrefix() {
            return prefix;
        }

        public void setPrefix(@Nullable String prefix) {
            this.prefix = prefix;
        }
    }

    /** The DynamoDB store. */
    public static class Dynamodb {

        /** The table; default the store's own name. */
        private @Nullable String table;

        public @Nullable String getTable() {
            return table;
        }

        public void setTable(@Nullable String table) {
            this.table = table;
        }
    }

    /** Removing expired records on a schedule. */
    public static class Purge {

        /** Purge on a schedule; safe on every instance at once (purge is idempotent). */
        private boolean enabled = true;

        /** The mean time between two purges; each wait is drawn within 20 % of it, so instances spread out. */
        private Duration interval = Duration.ofMinutes(5);

        /**
         * PostgreSQL and MySQL/MariaDB: how long the purge rests after each statement, as a multiple
         * of the statement's time (0: back to back), leaving a busy server to the consumers' claims.
         */
        private double niceRatio;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = positive(interval, "inbox.purge.interval");
        }

        public double getNiceRatio() {
            return niceRatio;
        }

        public void setNiceRatio(double niceRatio) {
            // the stores' own bound (PurgePacing.MAX_RATIO, in inbox-jdbc, which a Redis application lacks)
            if (!(niceRatio >= 0 && niceRatio <= 100)) {
                throw new IllegalArgumentException(
                        "inbox.purge.nice-ratio must be between 0 and 100, but was " + niceRatio);
            }
            this.niceRatio = niceRatio;
        }
    }

    /** Deduplicating the application's @KafkaListener or @RabbitListener methods. */
    public static class Listeners {

        private final String prefix;

        /** Deduplicate the listeners. */
        private boolean enabled = true;

        /**
         * The header (on SQS: the message attribute) that carries the producer's event id; default
         * CloudEvents and the Debezium outbox id (Kafka), the AMQP message-id then the Debezium outbox
         * id (RabbitMQ), a CloudEvent then the Debezium outbox id then the SNS MessageId (SQS); a
         * message with none of them takes the keyless path, never a content hash. On Kafka and
         * RabbitMQ a {@code RecordKeys} or {@code MessageKeys} bean of the application replaces
         * both; setting this property as well fails the startup.
         */
        private @Nullable String keyHeader;

        /**
         * The pause before a delivery whose event another delivery holds is tried again; on RabbitMQ
         * also before a message whose listener failed (retries exhausted) or that the store could
         * not claim is requeued, so that a poison message does not loop at full speed.
         */
        private Duration busyBackoff = Duration.ofSeconds(1);

        /**
         * Run each listener in a transaction of the DataSource's transaction manager, with the
         * claim inside it: the effectively-once mode of the SQL stores.
         */
        private boolean transactional = false;

        Listeners(String prefix) {
            this.prefix = prefix;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getKeyHeader() {
            return keyHeader;
        }

        public void setKeyHeader(@Nullable String keyHeader) {
            this.keyHeader = keyHeader;
        }

        public Duration getBusyBackoff() {
            return busyBackoff;
        }

        public void setBusyBackoff(Duration busyBackoff) {
            this.busyBackoff = positive(busyBackoff, prefix + ".busy-backoff");
        }

        public boolean isTransactional() {
            return transactional;
        }

        public void setTransactional(boolean transactional) {
            this.transactional = transactional;
        }
    }

    /** Deduplicating the application's @RabbitListener methods. */
    public static class RabbitListeners extends Listeners {

        /**
         * What a message without a usable dedup key comes to: {@code hold} (the default: held
         * unacknowledged on its consumer, never run and never dropped, logged at ERROR, requeued when
         * the container stops) or {@code dead-letter} (rejected without requeue, to the queue's
         * dead-letter exchange: only for queues that have one, since RabbitMQ drops a rejected
         * message otherwise).
         */
        private Keyless keylessMessages = Keyless.HOLD;

        RabbitListeners() {
            super("inbox.rabbit");
        }

        public Keyless getKeylessMessages() {
            return keylessMessages;
        }

        public void setKeylessMessages(Keyless keylessMessages) {
            if (keylessMessages == null) {
                throw new IllegalArgumentException("inbox.rabbit.keyless-messages must be hold or dead-letter");
            }
            this.keylessMessages = keylessMessages;
        }
    }

    /**
     * {@code inbox.rabbit.keyless-messages}: what a message without a usable dedup key comes to (the
     * starter's own type, so that these properties load without inbox-rabbitmq on the class path).
     */
    public enum Keyless {
        /** Held unacknowledged, never run, never dropped; requeued when the container stops. */
        HOLD,
        /** Rejected without requeue, to the queue's dead-letter exchange (only for queues that have one). */
        DEAD_LETTER
    }

    /** Deduplicating the application's @KafkaListener methods. */
    public static class KafkaListeners extends Listeners {

        /** The ids of the @KafkaListener methods to deduplicate; empty for all of them. */
        private List<String> listenerIds = new ArrayList<>();

        KafkaListeners() {
            super("inbox.kafka");
        }

        public List<String> getListenerIds() {
            return listenerIds;
        }

        public void setListenerIds(List<String> listenerIds) {
            this.listenerIds = listenerIds;
        }
    }

    /**
     * Idempotency-Key on the routes of a web application, Spring MVC (servlet) or WebFlux ({@code
     * inbox-http} on the class path): a repeat of a key's request gets the first response instead
     * of running the handler.
     */
    public static class Http {

        /**
         * The routes to guard: servlet URL patterns in a servlet application, such as {@code
         * /payments/*}; Spring path patterns in a WebFlux application, such as {@code /payments/**}.
         * Setting it (or the scope) registers the filter; the scope must then be set too. Optional
         * with Spring MVC or WebFlux, where every handler marked {@code @IdempotentRoute} is guarded
         * wherever it is mapped; required in a servlet application without Spring MVC.
         */
        private List<String> paths = new ArrayList<>();

        /**
         * Whose keys a request's key is among: {@code principal} (the authenticated user),
         * {@code header:<name>} (a tenant or API-key header your gateway sets or checks), or
         * {@code global} (only for keys no two clients can share). Required: there is no default.
         */
        private @Nullable String scope;

        /** Narrow the scope to the request's method and path, so a key is used once per route. */
        private boolean perRoute = false;

        /** Refuse a guarded request without a key (400); false lets it run unguarded. */
        private boolean keyRequired = true;

        /** The HTTP methods guarded. */
        private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));

        /** The longest request body read for the fingerprint; a longer one is refused (413). */
        private DataSize maxBodySize = DataSize.ofMegabytes(1);

        /** Keep and replay a 4xx the handler answered; false releases it like a 5xx. */
        private boolean keepClientErrors = true;

        /** The Retry-After of a 409 (the key's request still running) or a 503 (the store down). */
        private Duration retryAfter = Duration.ofSeconds(1);

        /**
         * Run a request unguarded while the store cannot answer, instead of answering 503: served,
         * but a retry with the same key runs the handler again. Off by default (fail closed).
         */
        private boolean failOpen = false;

        /**
         * How long a request whose key is still in flight waits for that request's response (then
         * replayed) before it is answered 409; at most 1m. The default, 0, answers 409 at once.
         */
        private Duration waitWhileInFlight = Duration.ZERO;

        /**
         * Transactional mode (servlet applications): each request's claim, its handler's writes on
         * the DataSource (its {@code @Transactional} methods join the request's transaction) and its
         * kept response commit together. Needs inbox-postgres or inbox-mysql on that DataSource.
         */
        private boolean transactional = false;

        /**
         * The filter's order. The default, 0, runs it after Spring Security's filter chain (-100),
         * so that a request refused there never claims its key and a principal scope sees the user.
         */
        private int filterOrder = 0;

        public List<String> getPaths() {
            return paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public @Nullable String getScope() {
            return scope;
        }

        public void setScope(@Nullable String scope) {
            this.scope = scope;
        }

        public boolean isPerRoute() {
            return perRoute;
        }

        public void setPerRoute(boolean perRoute) {
            this.perRoute = perRoute;
        }

        public boolean isKeyRequired() {
            return keyRequired;
        }

        public void setKeyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
        }

        public List<String> getMethods() {
            return methods;
        }

        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        public DataSize getMaxBodySize() {
            return maxBodySize;
        }

        public void setMaxBodySize(DataSize maxBodySize) {
            if (maxBodySize == null || maxBodySize.isNegative() || maxBodySize.toBytes() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("inbox.http.max-body-size must be 0 to 2GB, but was " + maxBodySize);
            }
            this.maxBodySize = maxBodySize;
        }

        public boolean isKeepClientErrors() {
            return keepClientErrors;
        }

        public void setKeepClientErrors(boolean keepClientErrors) {
            this.keepClientErrors = keepClientErrors;
        }

        public boolean isFailOpen() {
            return failOpen;
        }

        public void setFailOpen(boolean failOpen) {
            this.failOpen = failOpen;
        }

        public Duration getRetryAfter() {
            return retryAfter;
        }

        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = positive(retryAfter, "inbox.http.retry-after");
        }

        public boolean isTransactional() {
            return transactional;
        }

        public void setTransactional(boolean transactional) {
            this.transactional = transactional;
        }

        public Duration getWaitWhileInFlight() {
            return waitWhileInFlight;
        }

        public void setWaitWhileInFlight(Duration waitWhileInFlight) {
            this.waitWhileInFlight = waitWhileInFlight;
        }

        public int getFilterOrder() {
            return filterOrder;
        }

        public void setFilterOrder(int filterOrder) {
            this.filterOrder = filterOrder;
        }
    }
}
