/** The bounded in-memory store, its sequence guard and the near-cache decorator: {@code dev.inbox.caffeine}. */
module dev.inbox.caffeine {
    requires transitive dev.inbox;
    requires transitive com.github.benmanes.caffeine; // the builder takes a Caffeine Ticker
    requires static transitive org.jspecify;

    exports dev.inbox.caffeine;
}
