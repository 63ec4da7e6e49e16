package dev.inbox.spring.web;

import java.util.List;
import java.util.function.Function;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;

/**
 * The requests whose path (within the application) matches one of some Spring path patterns, such
 * as {@code /payments/**} or {@code /orders/{id}/refunds}: the routes of an {@link
 * IdempotencyWebFilter} that guards routes by path rather than by marked handler.
 */
public final class IdempotentPathPatterns implements Function<ServerWebExchange, Mono<Boolean>> {

    private final List<PathPattern> patterns;

    /**
     * The routes under {@code patterns}, in Spring's {@link PathPattern} syntax.
     *
     * @throws IllegalArgumentException if {@code patterns} is null or empty, or one is null or not a
     *     pattern
     */
    public IdempotentPathPatterns(List<String> patterns) {
        if (patterns == null || patterns.isEmpty()) {
            throw new IllegalArgumentException("at least one path pattern is needed");
        }
        this.patterns = patterns.stream()
                .map(pattern -> {
                    if (pattern == null || pattern.isBlank()) {
                        throw new IllegalArgumentException("a path pattern must not be null or blank");
                    }
                    try {
                        return PathPatternParser.defaultInstance.parse(pattern.strip());
                    } catch (RuntimeException invalid) { // PatternParseException
                        throw new IllegalArgumentException(
                                "'" + pattern + "' is not a path pattern: " + invalid.getMessage(), invalid);
                    }
                })
                .toList();
    }

    @Override
    public Mono<Boolean> apply(ServerWebExchange exchange) {
        var path = exchange.getRequest().getPath().pathWithinApplication();
        for (PathPattern pattern : patterns) {
            if (pattern.matches(path)) {
                return Mono.just(true);
            }
        }
        return Mono.just(false);
    }

    @Override
    public String toString() {
        return "IdempotentPathPatterns" + patterns;
    }
}
