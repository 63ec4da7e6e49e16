/**
 * The inbox API: the facade and keys for applications ({@code dev.inbox}, {@code
 * dev.inbox.keys}) and the store contract for store authors ({@code dev.inbox.spi}). JSpecify's
 * nullness annotations are needed only to compile.
 */
module dev.inbox {
    requires static transitive org.jspecify;

    exports dev.inbox;
    exports dev.inbox.keys;
    exports dev.inbox.spi;
}
