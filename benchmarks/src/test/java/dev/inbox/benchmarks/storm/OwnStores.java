package dev.inbox.benchmarks.storm;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.InboxStore;
import java.util.function.Supplier;

/** Stores of "your own", as the storm's {@code --store CLASS} and the JMH benchmark load them: by class name. */
final class OwnStores {

    private OwnStores() {}

    /** A correct store: the embedded one. */
    public static final class Correct implements Supplier<InboxStore> {
        @Override
        public InboxStore get() {
            return CaffeineInboxStore.builder().build();
        }
    }

    /** A store that forgets completions: a storm on it must fail. */
    public static final class Forgetful implements Supplier<InboxStore> {
        @Override
        public InboxStore get() {
            return new StormRunnerTest.ForgetfulStore();
        }
    }

    /** Not a supplier at all. */
    public static final class NotASupplier {}

    /** A supplier of something else. */
    public static final class SuppliesAString implements Supplier<String> {
        @Override
        public String get() {
            return "not a store";
        }
    }
}
