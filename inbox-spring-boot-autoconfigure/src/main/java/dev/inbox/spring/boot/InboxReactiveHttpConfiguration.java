package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.spring.web.IdempotencyWebFilter;
import dev.inbox.spring.web.IdempotentPathPatterns;
import dev.inbox.spring.web.ReactiveIdempotentRoutes;
import java.util.List;
import java.util.function.Function;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@code inbox.http.*} in a WebFlux application: the {@link IdempotencyWebFilter} on every handler
 * marked {@link dev.inbox.spring.web.IdempotentRoute} and on the routes under {@code
 * inbox.http.paths} (Spring path patterns), over the application's inbox, ordered by {@code
 * inbox.http.filter-order}. Registered, like the servlet filter, when {@code inbox.http.paths} or
 * {@code inbox.http.scope} is set; the scope is then required. An {@link IdempotentRequests} bean
 * of the application replaces the one built here, and a {@code WebFilter} bean named {@code
 * inboxIdempotencyWebFilter} replaces the filter. A marked handler that streams ({@code
 * text/event-stream}, {@code application/x-ndjson}, {@code ServerSentEvent}) stops the startup.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({IdempotentRequests.class, IdempotencyWebFilter.class, WebFilter.class, Mono.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@Conditional(InboxHttpConfiguration.OnHttpSettings.class)
class InboxReactiveHttpConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotentRequests inboxIdempotentRequests(Inbox inbox, InboxProperties properties) {
        if (properties.getHttp().isTransactional()) {
            throw new InboxStartupException(
                    "inbox.http.transactional=true in a WebFlux application: transactional mode needs the handler on"
                            + " the request's thread, in the transaction opened there.",
                    "Remove inbox.http.transactional (lease mode), or serve the idempotent routes with Spring MVC.",
                    null);
        }
        return InboxHttpConfiguration.requests(inbox, properties).build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "inboxIdempotencyWebFilter")
    WebFilter inboxIdempotencyWebFilter(
            IdempotentRequests requests, InboxProperties properties, ApplicationContext context) {
        ReactiveIdempotentRoutes marked = new ReactiveIdempotentRoutes(context);
        List<String> paths = properties.getHttp().getPaths();
        Function<ServerWebExchange, Mono<Boolean>> routes;
        if (paths.isEmpty()) {
            routes = marked;
        } else {
            IdempotentPathPatterns under = new IdempotentPathPatterns(paths);
            routes = exchange -> under.apply(exchange).flatMap(hit -> hit ? Mono.just(true) : marked.apply(exchange));
        }
        return new OrderedFilter(
                new IdempotencyWebFilter(requests, routes), properties.getHttp().getFilterOrder());
    }

    /** A marked handler that streams stops the startup. */
    @Bean
    SmartInitializingSingleton inboxIdempotentRoutesCheck(ApplicationContext context) {
        return () -> InboxHttpConfiguration.checked(() -> new ReactiveIdempotentRoutes(context).checkHandlers());
    }

    /** The filter at the order {@code inbox.http.filter-order} gives it. */
    record OrderedFilter(IdempotencyWebFilter filter, int order) implements WebFilter, Ordered {
        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            return filter.filter(exchange, chain);
        }

        @Override
        public int getOrder() {
            return order;
        }
    }
}
