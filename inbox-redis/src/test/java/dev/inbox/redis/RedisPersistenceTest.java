package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The persistence check against redis-server processes started with and without an append-only file. */
class RedisPersistenceTest {

    private static List<String> warningsOf(Runnable check) {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(RedisInboxStore.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(handler);
        try {
            check.run();
        } finally {
            logger.removeHandler(handler);
        }
        return warnings;
    }

    @Test
    void aServerWithoutPersistence_isReported_andWarnedAbout() throws Exception {
        try (RedisProcesses server = RedisProcesses.standalone(false);
                RedisInboxStore store =
                        RedisInboxStore.builder(RedisURI.create(server.uri())).build()) {
            RedisPersistence[] found = new RedisPersistence[1];
            List<String> warnings = warningsOf(() -> found[0] = store.checkPersistence(Duration.ofHours(48)));
            assertThat(found[0]).isEqualTo(new RedisPersistence(true, false, false));
            assertThat(found[0].losesEverythingOnRestart()).isTrue();
            assertThat(warnings)
                    .singleElement()
                    .asString()
                    .contains("appendonly yes")
                    .contains("PT48H");
        }
    }

    @Test
    void aServerWithAnAppendOnlyFile_passesSilently() throws Exception {
        try (RedisProcesses server = RedisProcesses.standalone(true);
                RedisInboxStore store =
                        RedisInboxStore.builder(RedisURI.create(server.uri())).build()) {
            RedisPersistence[] found = new RedisPersistence[1];
            List<String> warnings = warningsOf(() -> found[0] = store.checkPersistence(Duration.ofHours(48)));
            assertThat(found[0].appendOnly()).isTrue();
            assertThat(found[0].losesEverythingOnRestart()).isFalse();
            assertThat(warnings).isEmpty();
            assertThatThrownBy(() -> store.checkPersistence(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
