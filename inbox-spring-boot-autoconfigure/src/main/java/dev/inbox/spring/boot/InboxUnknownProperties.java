package dev.inbox.spring.boot;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.env.Environment;

/**
 * Warns at startup of {@code inbox.*} properties that no setting of the starter reads — a typo
 * ({@code inbox.retension}) would otherwise leave the default in force without a word. Only the
 * application's own property files and test properties count: environment variables and system
 * properties are left out, as Spring Boot leaves them out of its own unbound-property checks (an
 * {@code INBOX_…} variable meant for something else is no typo). A warning, not a failure, so that an
 * older instance of a rolling deploy still starts with a newer configuration.
 */
final class InboxUnknownProperties implements SmartInitializingSingleton {

    private static final Log log = LogFactory.getLog(InboxUnknownProperties.class);

    private final Environment environment;

    InboxUnknownProperties(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        try {
            Binder.get(environment)
                    .bind(
                            "inbox",
                            Bindable.of(InboxProperties.class),
                            new NoUnboundElementsBindHandler(BindHandler.DEFAULT, new UnboundElementsSourceFilter()));
        } catch (BindException e) {
            if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                StringBuilder names = new StringBuilder();
                for (ConfigurationProperty property : unbound.getUnboundProperties()) {
                    names.append(names.isEmpty() ? "" : ", ")
                            .append(property.getName())
                            .append(" (")
                            .append(property.getOrigin() == null ? "unknown origin" : property.getOrigin())
                            .append(')');
                }
                log.warn("inbox: no setting of the starter reads " + names + ": a misspelt property leaves its"
                        + " default in force. See the inbox.* properties in the starter's documentation");
            }
            // any other binding failure is the starter's own binding's to report, with its message
        }
    }
}
