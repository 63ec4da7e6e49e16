package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.web.IdempotentRoutes;
import dev.inbox.spring.web.SpringRequestTransactions;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * {@code inbox.http.*}: the {@code Idempotency-Key} filter of {@code inbox-http} on the routes
 * {@code inbox.http.paths} names and, in a Spring MVC application, on every handler method marked
 * {@link dev.inbox.spring.web.IdempotentRoute}, in a servlet web application, over the
 * application's inbox. It is registered when {@code inbox.http.paths} or {@code inbox.http.scope}
 * is set, and then needs the scope, and paths unless Spring MVC is there to find marked handlers;
 * an {@link IdempotentRequests} bean of the application replaces the one built here. A request
 * both under the paths and to a marked handler is guarded once.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({IdempotencyFilter.class, FilterRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@Conditional(InboxHttpConfiguration.OnHttpSettings.class)
class InboxHttpConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotentRequests inboxIdempotentRequests(
            Inbox inbox,
            InboxProperties properties,
            SpringInbox spring,
            ObjectProvider<PlatformTransactionManager> transactions) {
        IdempotentRequests.Builder requests = requests(inbox, properties);
        if (properties.getHttp().isTransactional()) {
            PlatformTransactionManager manager =
                    InboxAutoConfiguration.transactionManager(spring, transactions, "inbox.http.transactional");
            DataSource dataSource = spring.dataSource();
            if (dataSource == null) { // transactionManager refused that already
                throw new IllegalStateException("inbox.http.transactional=true without a DataSource");
            }
            requests.transactional(new SpringRequestTransactions(manager, dataSource, inbox));
        }
        return requests.build();
    }

    /** The {@code inbox.http.*} decisions over {@code inbox}: the servlet and the WebFlux filter's alike. */
    static IdempotentRequests.Builder requests(Inbox inbox, InboxProperties properties) {
        InboxProperties.Http http = properties.getHttp();
        IdempotencyScope scope = scope(http.getScope());
        return IdempotentRequests.builder(inbox)
                .scope(http.isPerRoute() ? scope.perRoute() : scope)
                .keyRequired(http.isKeyRequired())
                .methods(http.getMethods().toArray(String[]::new))
                .maxBodyBytes((int) http.getMaxBodySize().toBytes())
                .keepClientErrors(http.isKeepClientErrors())
                .failOpen(http.isFailOpen())
                .retryAfter(http.getRetryAfter())
                .waitWhileInFlight(http.getWaitWhileInFlight());
    }

    @Bean
    @ConditionalOnMissingBean(name = "inboxIdempotencyFilter")
    FilterRegistrationBean<IdempotencyFilter> inboxIdempotencyFilter(
            IdempotentRequests requests, InboxProperties properties, ApplicationContext context) {
        List<String> paths = properties.getHttp().getPaths();
        if (!paths.isEmpty()) {
            return registration(new IdempotencyFilter(requests), paths, properties);
        }
        if (!Mvc.present(context)) {
            throw new InboxStartupException(
                    "inbox.http.scope is set but inbox.http.paths is empty, and without Spring MVC no handler can be"
                            + " marked @IdempotentRoute: no route would be guarded.",
                    "Set inbox.http.paths to the servlet URL patterns of the routes that take an Idempotency-Key,"
                            + " such as /payments/*.",
                    null);
        }
        return registration(Mvc.markedRoutes(requests, context), List.of("/*"), properties);
    }

    /** With Spring MVC, a marked handler that streams or answers asynchronously stops the startup. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = Mvc.MAPPING)
    static class MarkedRoutesCheck {
        @Bean
        SmartInitializingSingleton inboxIdempotentRoutesCheck(ApplicationContext context) {
            return () -> checked(() -> new IdempotentRoutes(context).checkHandlers());
        }
    }

    /** Runs a routes check, its refusal turned into the starter's failure analysis. */
    static void checked(Runnable check) {
        try {
            check.run();
        } catch (IllegalStateException refused) {
            throw new InboxStartupException(
                    refused.getMessage(),
                    "Take @IdempotentRoute off the handlers named, or make them answer whole (non-streamed,"
                            + " synchronous on Spring MVC) responses, which the Idempotency-Key filter holds back"
                            + " and keeps for replays.",
                    refused);
        }
    }

    /** With paths set, the handlers marked {@code @IdempotentRoute} outside them are guarded too. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = Mvc.MAPPING)
    @Conditional(OnHttpPaths.class)
    static class MarkedRoutesBesidePaths {
        @Bean
        @ConditionalOnMissingBean(name = "inboxIdempotentRoutesFilter")
        FilterRegistrationBean<IdempotencyFilter> inboxIdempotentRoutesFilter(
                IdempotentRequests requests, InboxProperties properties, ApplicationContext context) {
            FilterRegistrationBean<IdempotencyFilter> registration =
                    registration(Mvc.markedRoutes(requests, context), List.of("/*"), properties);
            registration.setName("inboxIdempotentRoutesFilter");
            return registration;
        }
    }

    private static FilterRegistrationBean<IdempotencyFilter> registration(
            IdempotencyFilter filter, List<String> patterns, InboxProperties properties) {
        FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("inboxIdempotencyFilter");
        registration.setUrlPatterns(patterns);
        registration.setOrder(properties.getHttp().getFilterOrder());
        registration.setAsyncSupported(false);
        return registration;
    }

    /** Spring MVC's part, loaded only when Spring MVC is on the classpath. */
    static final class Mvc {
        static final String MAPPING =
                "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping";

        private Mvc() {}

        /** Whether the application's class loader has Spring MVC. */
        static boolean present(ApplicationContext context) {
            return ClassUtils.isPresent(MAPPING, context.getClassLoader());
        }

        static IdempotencyFilter markedRoutes(IdempotentRequests requests, ApplicationContext context) {
            return new IdempotencyFilter(requests, new IdempotentRoutes(context));
        }
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

    /** {@code inbox.http.paths} holds at least one pattern. */
    static final class OnHttpPaths extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return paths(context)
                    ? ConditionOutcome.match("inbox.http.paths is set")
                    : ConditionOutcome.noMatch("inbox.http.paths is empty");
        }
    }

    static boolean paths(ConditionContext context) {
        return Binder.get(context.getEnvironment())
                .bind("inbox.http.paths", Bindable.listOf(String.class))
                .map(list -> !list.isEmpty())
                .orElse(false);
    }

    /** Either setting present (as a value or a list): the filter is wanted, and will say what is missing. */
    static final class OnHttpSettings extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean scope = context.getEnvironment().containsProperty("inbox.http.scope");
            return paths(context) || scope
                    ? ConditionOutcome.match("inbox.http.paths or inbox.http.scope is set")
                    : ConditionOutcome.noMatch("neither inbox.http.paths nor inbox.http.scope is set");
        }
    }
}
