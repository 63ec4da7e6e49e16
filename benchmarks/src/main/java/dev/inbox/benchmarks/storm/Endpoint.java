package dev.inbox.benchmarks.storm;

/** How the storm names the store it could not reach: the endpoint without its password, and the first cause. */
final class Endpoint {

    private Endpoint() {}

    static String of(StormConfig config) {
        String endpoint = switch (config.store()) {
            case "postgres" -> config.jdbcUrl();
            case "mysql" ->
                config.jdbcUrl().equals(StormConfig.DEFAULT_JDBC_URL)
                        ? StormConfig.DEFAULT_MYSQL_URL
                        : config.jdbcUrl();
            case "redis", "redis-cluster" -> config.redisUrl();
            case "dynamodb" -> config.dynamodbUrl().isEmpty() ? "AWS's default endpoint" : config.dynamodbUrl();
            default -> config.store();
        };
        return endpoint.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("//([^:/@]*):[^@/]*@", "//$1:***@");
    }

    /** The innermost cause's message, which says what went wrong (refused, unknown host, timed out). */
    static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName()
                + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }
}
