package dev.inbox.spring.boot;

import dev.inbox.spi.InboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.Lifecycle;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * What the Boot starter's kit harnesses share: one consumer is a Spring Boot application of its
 * own, with the starter configured for the kit ({@code inbox.consumer}, {@code inbox.lease}, no
 * purge) and the beans an application supplies — the store over the kit's and, in transactional
 * mode, its {@code DataSource} (the kit's, {@link AdapterKit#dataSource}) and a transaction manager
 * on it — and a watcher that starts the listener container again when Spring stopped it on its own
 * (as it does when a listener threw an {@code Error}), as a supervised application would.
 */
abstract class BootKitApplication implements AdapterHarness.Running {

    private volatile @Nullable ConfigurableApplicationContext context;
    private final Thread watcher = new Thread(this::watch, "adapter-kit-boot-watcher");
    private volatile boolean ended;

    /**
     * Starts the application {@code application} with {@code properties} besides the kit's, the
     * store and (when {@code connections} is given) the transactions, and the beans {@code beans}
     * registers; then watches its listener container.
     */
    final void start(
            Class<?> application,
            AdapterKit kit,
            InboxStore store,
            @Nullable DataSource connections,
            Map<String, String> properties,
            Consumer<GenericApplicationContext> beans) {
        Map<String, Object> all = new HashMap<>(properties);
        all.put("spring.main.banner-mode", "off");
        all.put("inbox.consumer", kit.consumer());
        all.put("inbox.lease", kit.lease().toMillis() + "ms");
        all.put("inbox.purge.enabled", "false");
        context = new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .properties(all)
                .initializers(app -> {
                    GenericApplicationContext registry = (GenericApplicationContext) app;
                    registry.registerBean(InboxStore.class, () -> store);
                    if (connections != null) {
                        registry.registerBean(DataSource.class, () -> connections);
                        registry.registerBean(
                                PlatformTransactionManager.class, () -> new DataSourceTransactionManager(connections));
                    }
                    beans.accept(registry);
                })
                .run();
        watcher.setDaemon(true);
        watcher.start();
    }

    /** The application, once started. */
    final ConfigurableApplicationContext context() {
        ConfigurableApplicationContext started = context;
        if (started == null) {
            throw new IllegalStateException("the application has not started");
        }
        return started;
    }

    /** The application's listener container. */
    abstract Lifecycle container();

    /** Ends the watching, first thing in a stop or a crash. */
    final void end() {
        ended = true;
    }

    private void watch() {
        while (!ended) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            if (!ended && context().isActive() && !container().isRunning()) {
                container().start();
            }
        }
    }

    /** Closes the application, as the container documents its graceful stop. */
    @Override
    public void stop() throws InterruptedException {
        end();
        watcher.join(5_000);
        context().close();
    }
}
