package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.TestServers;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jmx.JmxEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code inbox} Actuator endpoint through Actuator's own JMX exposure, on a real PostgreSQL
 * store: created only when exposed, read-only by default, and its writes once access is unrestricted.
 */
class InboxEndpointTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    InboxAutoConfiguration.class,
                    EndpointAutoConfiguration.class,
                    JmxAutoConfiguration.class,
                    JmxEndpointAutoConfiguration.class))
            // As SpringApplication does: property values convert leniently ("unrestricted" to UNRESTRICTED).
            .withInitializer(
                    context -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
            .withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(TestServers.postgres()))
            .withPropertyValues(
                    "spring.application.name=endpoint-" + java.util.UUID.randomUUID(),
                    "inbox.create-schema=true",
                    "inbox.jdbc.table=inbox_endpoint",
                    "spring.jmx.enabled=true",
                    "spring.jmx.unique-names=true");

    @Test
    void notExposed_noEndpoint() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(InboxEndpoint.class));
    }

    @Test
    void exposedOverJmx_readsTheStore_andOffersNoWrites() {
        runner.withPropertyValues("management.endpoints.jmx.exposure.include=inbox")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(InboxEndpoint.class);
                    Inbox inbox = context.getBean(Inbox.class);
                    InboxKey held = InboxKey.of(
                            inbox.consumer(), "order/" + OwnerToken.random().value());
                    OwnerToken owner = OwnerToken.random();
                    inbox.store().claim(ClaimRequest.of(held, owner, Duration.ofMillis(200)));
                    Thread.sleep(400);

                    MBeanServer server = context.getBean(MBeanServer.class);
                    ObjectName name = endpoint(server);
                    assertThat(operations(server, name)).containsExactlyInAnyOrder("summary", "consumer", "record");

                    Map<?, ?> summary = (Map<?, ?>) server.invoke(name, "summary", new Object[0], new String[0]);
                    assertThat(summary.get("consumer")).isEqualTo(inbox.consumer());
                    assertThat(((Map<?, ?>) summary.get("records")).get("leaseEnded"))
                            .isEqualTo(1L);

                    Map<?, ?> record = (Map<?, ?>) invoke(server, name, "record", inbox.consumer(), held.id());
                    assertThat(record.get("state")).isEqualTo("LEASE_ENDED");
                    assertThat(record.get("owner")).isEqualTo(owner.value());

                    Map<?, ?> page = (Map<?, ?>) invoke(server, name, "consumer", inbox.consumer(), null, null, 10);
                    assertThat(page.get("stuck").toString()).contains(held.id());
                    assertThat(page.get("next")).isNull();
                    assertThat(invoke(server, name, "record", inbox.consumer(), "absent"))
                            .isNull();
                    inbox.store().admin().forget(held);
                });
    }

    @Test
    void unrestrictedAccess_releasesAndForgets() {
        runner.withPropertyValues(
                        "management.endpoints.jmx.exposure.include=inbox",
                        "management.endpoint.inbox.access=unrestricted")
                .run(context -> {
                    Inbox inbox = context.getBean(Inbox.class);
                    MBeanServer server = context.getBean(MBeanServer.class);
                    ObjectName name = endpoint(server);
                    assertThat(operations(server, name)).contains("releaseLease", "forget");

                    InboxKey key = InboxKey.of(
                            inbox.consumer(), "order-" + OwnerToken.random().value());
                    OwnerToken owner = OwnerToken.random();
                    inbox.store().claim(ClaimRequest.of(key, owner, Duration.ofMinutes(5)));
                    Map<?, ?> released = (Map<?, ?>) invoke(server, name, "releaseLease", inbox.consumer(), key.id());
                    assertThat(released.get("released")).isEqualTo(true);
                    assertThat(inbox.store().complete(key, owner, Duration.ofMinutes(5)))
                            .as("the released owner is fenced")
                            .isFalse();

                    assertThat(inbox.handle(key.id(), () -> {}).outcome().name())
                            .isEqualTo("PROCESSED");
                    Map<?, ?> forgotten = (Map<?, ?>) invoke(server, name, "forget", inbox.consumer(), key.id());
                    assertThat(forgotten.get("forgotten")).isEqualTo(true);
                    assertThat(inbox.handle(key.id(), () -> {}).outcome().name())
                            .as("applied again once forgotten")
                            .isEqualTo("PROCESSED");
                    inbox.store().admin().forget(key);
                });
    }

    private static ObjectName endpoint(MBeanServer server) throws Exception {
        Set<ObjectName> names =
                server.queryNames(new ObjectName("org.springframework.boot:type=Endpoint,name=Inbox,*"), null);
        assertThat(names).as("the inbox endpoint's MBean").hasSize(1);
        return names.iterator().next();
    }

    private static Set<String> operations(MBeanServer server, ObjectName name) throws Exception {
        return Set.copyOf(Arrays.stream(server.getMBeanInfo(name).getOperations())
                .map(MBeanOperationInfo::getName)
                .toList());
    }

    private static Object invoke(MBeanServer server, ObjectName name, String operation, Object... args)
            throws Exception {
        MBeanOperationInfo info = Arrays.stream(server.getMBeanInfo(name).getOperations())
                .filter(o -> o.getName().equals(operation))
                .findFirst()
                .orElseThrow();
        String[] types =
                Arrays.stream(info.getSignature()).map(p -> p.getType()).toArray(String[]::new);
        return server.invoke(name, operation, args, types);
    }
}
