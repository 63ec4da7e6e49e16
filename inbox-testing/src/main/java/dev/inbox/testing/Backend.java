package dev.inbox.testing;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Everything {@link TestServers} needs to find, or start, a server of one kind: where a user names
 * their own, the local default, how to tell that it answers, and the container to start otherwise.
 */
record Backend(
        String name,
        String kind,
        String localDefault,
        String example,
        String localHint,
        Probe probe,
        String defaultImage,
        int containerPort,
        Map<String, String> containerEnv,
        List<String> containerCommand,
        BiFunction<String, Integer, String> endpointAt) {

    /** Where a user names their own server, such as {@code INBOX_TEST_POSTGRES_URL}. */
    String variable() {
        return "INBOX_TEST_" + kind.toUpperCase(Locale.ROOT) + "_URL";
    }

    /** Where a user names the image to start, such as {@code INBOX_TEST_POSTGRES_IMAGE}. */
    String imageVariable() {
        return "INBOX_TEST_" + kind.toUpperCase(Locale.ROOT) + "_IMAGE";
    }

    /** The image to start: {@code -Dinbox.test.<kind>.image}, else the image variable, else the default. */
    String image() {
        String configured = Settings.get("inbox.test." + kind + ".image", imageVariable());
        return configured != null ? configured : defaultImage;
    }

    static final Backend POSTGRES = new Backend(
            "PostgreSQL",
            "postgres",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&connectTimeout=3",
            "jdbc:postgresql://host:5432/db?user=u&password=p",
            "run PostgreSQL on 127.0.0.1:5432 with a database `test` that user `postgres` reaches without a password",
            Probe::jdbc,
            "postgres:16",
            5432,
            Map.of("POSTGRES_USER", "postgres", "POSTGRES_PASSWORD", "inbox", "POSTGRES_DB", "test"),
            List.of("postgres", "-c", "fsync=off"),
            (host, port) ->
                    "jdbc:postgresql://" + host + ":" + port + "/test?user=postgres&password=inbox&connectTimeout=3");

    static final Backend MYSQL = new Backend(
            "MySQL/MariaDB",
            "mysql",
            "jdbc:mysql://127.0.0.1:3306/test?user=root&password=&sslMode=DISABLED"
                    + "&allowPublicKeyRetrieval=true&connectTimeout=3000",
            "jdbc:mysql://host:3306/db?user=u&password=p",
            "run MariaDB 10.6+ or MySQL 8+ on 127.0.0.1:3306 with a database `test` and user `root` without a password",
            Probe::jdbc,
            "mariadb:11",
            3306,
            // Both the official mysql and mariadb images read the MYSQL_ names.
            Map.of("MYSQL_ROOT_PASSWORD", "inbox", "MYSQL_DATABASE", "test"),
            List.of(),
            (host, port) -> "jdbc:mysql://" + host + ":" + port + "/test?user=root&password=inbox&sslMode=DISABLED"
                    + "&allowPublicKeyRetrieval=true&connectTimeout=3000");

    static final Backend REDIS = new Backend(
            "Redis",
            "redis",
            "redis://127.0.0.1:6379",
            "redis://host:6379",
            "run redis-server on 127.0.0.1:6379",
            Probe::redis,
            "redis:7",
            6379,
            Map.of(),
            List.of(),
            (host, port) -> "redis://" + host + ":" + port);

    static final Backend RABBITMQ = new Backend(
            "RabbitMQ",
            "rabbitmq",
            "amqp://guest:guest@127.0.0.1:5672",
            "amqp://user:password@host:5672",
            "run RabbitMQ on 127.0.0.1:5672 with the guest user",
            Probe::amqp,
            "rabbitmq:4",
            5672,
            Map.of("RABBITMQ_DEFAULT_USER", "inbox", "RABBITMQ_DEFAULT_PASS", "inbox"),
            List.of(),
            (host, port) -> "amqp://inbox:inbox@" + host + ":" + port);
}
