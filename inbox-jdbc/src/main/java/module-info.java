/**
 * What the SQL stores share and users of transactional mode call: {@code dev.inbox.jdbc}
 * (TransactionalInbox, the transactional store contract, the executor, named statements, SQL
 * identifiers and versioned scripts).
 */
module dev.inbox.jdbc {
    requires transitive dev.inbox;
    requires transitive java.sql;
    requires static transitive org.jspecify;

    exports dev.inbox.jdbc;
}
