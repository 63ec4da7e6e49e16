package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code inbox.http.*}: the {@code Idempotency-Key} filter of {@code inbox-http} on the routes
 * {@code inbox.http.paths} names, in a servlet web application, over the application's inbox. It
 * is registered when {@code inbox.http.paths} or {@code inbox.http.scope} is set, and then needs
 * both; an {@link IdempotentRequests} bean of the application replaces the one built here.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({IdempotencyFilter.class, FilterRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(InboxHttpConfiguration.OnHttpSettings.class)
class InboxHttpConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotentRequests inboxIdempotentRequests(Inbox inbox, InboxProperties properties) {
        InboxProperties.Http http = properties.getHttp();
        IdempotencyScope scope = scope(http.getScope());
        return IdempotentRequests.builder(inbox)
                .scope(http.isPerRoute() ? scope.perRoute() : scope)
                .keyRequired(http.isKeyRequired())
                .methods(http.getMethods().toArray(String[]::new))
                .maxBodyBytes((int) http.getMaxBodySize().toBytes())
                .keepClientErrors(http.isKeepClientErrors())
                .retryAfter(http.getRetryAfter())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "inboxIdempotencyFilter")
    FilterRegistrationBean<IdempotencyFilter> inboxIdempotencyFilter(
            IdempotentRequests requests, InboxProperties properties) {
        List<String> paths = properties.getHttp().getPaths();
        if (paths.isEmpty()) {
            throw new InboxStartupException(
                    "inbox.http.scope is set but inbox.http.paths is empty: no route would be guarded.",
                    "Set inbox.http.paths to the servlet URL patterns of the routes that take an Idempotency-Key,"
                            + " such as /payments/*.",
                    null);
        }
        FilterRegistrationBean<IdempotencyFilter> registration =
                new FilterRegistrationBean<>(new IdempotencyFilter(requests));
        registration.setName("inboxIdempotencyFilter");
        registration.setUrlPatterns(paths);
        registration.setOrder(properties.getHttp().getFilterOrder());
        registration.setAsyncSupported(false);
        return registration;
    }

    /** {@code principal}, {@code global} or {@code header:<name>}. */
    static IdempotencyScope scope(@Nullable String setting) {
        String action = "Set inbox.http.scope to principal (the authenticated user), header:<name> (a tenant or"
                + " API-key header your gateway sets or checks) or global (only for keys no two clients can share).";
        if (setting == null || setting.isBlank()) {
            throw new InboxStartupException(
                    "inbox.http.paths is set but inbox.http.scope is not: two clients' keys could meet.", action, null);
        }
        String value = setting.strip();
        if (value.equals("principal")) {
            return IdempotencyScope.principal();
        }
        if (value.equals("global")) {
            return IdempotencyScope.global();
        }
        if (value.startsWith("header:") && !value.substring(7).isBlank()) {
            return IdempotencyScope.header(value.substring(7).strip());
        }
        throw new InboxStartupException("inbox.http.scope is '" + setting + "', which is not a scope.", action, null);
    }

    /** Either setting present (as a value or a list): the filter is wanted, and will say what is missing. */
    static final class OnHttpSettings extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            boolean paths = binder.bind("inbox.http.paths", Bindable.listOf(String.class))
                    .map(list -> !list.isEmpty())
                    .orElse(false);
            boolean scope = context.getEnvironment().containsProperty("inbox.http.scope");
            return paths || scope
                    ? ConditionOutcome.match("inbox.http.paths or inbox.http.scope is set")
                    : ConditionOutcome.noMatch("neither inbox.http.paths nor inbox.http.scope is set");
        }
    }
}
