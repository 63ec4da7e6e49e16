package dev.inbox.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The requests whose Spring MVC handler method (or its controller) is marked {@link
 * IdempotentRoute}: the routes predicate of an {@link dev.inbox.http.IdempotencyFilter} mapped to
 * every path ({@code /*}) in front of the {@code DispatcherServlet}.
 *
 * <pre>{@code
 * new IdempotencyFilter(requests, new IdempotentRoutes(applicationContext))
 * }</pre>
 *
 * <p>It asks the application's {@link RequestMappingHandlerMapping}s, in their order, which handler
 * a request reaches — the lookup the {@code DispatcherServlet} makes again after it — on a view of
 * the request whose attributes stay its own, so the lookup leaves nothing behind for the
 * dispatcher. The mappings are found on first use, when the application context is running. A
 * request no mapping handles, or one a mapping refuses to look up, is not guarded (it is answered
 * by the dispatcher as without the filter).
 */
public final class IdempotentRoutes implements Predicate<HttpServletRequest> {

    private final ListableBeanFactory beans;
    private volatile @Nullable List<RequestMappingHandlerMapping> mappings;

    /**
     * The routes of the handler mappings in {@code beans} (the web application context).
     *
     * @throws IllegalArgumentException if {@code beans} is null
     */
    public IdempotentRoutes(ListableBeanFactory beans) {
        if (beans == null) {
            throw new IllegalArgumentException("beans must not be null");
        }
        this.beans = beans;
    }

    @Override
    public boolean test(HttpServletRequest request) {
        HttpServletRequest probe = new OwnAttributes(request);
        ServletRequestPathUtils.parseAndCache(probe);
        for (RequestMappingHandlerMapping mapping : mappings()) {
            HandlerExecutionChain chain;
            try {
                chain = mapping.getHandler(probe);
            } catch (Exception refused) {
                return false; // the dispatcher meets the same refusal and answers it
            }
            if (chain != null) {
                return chain.getHandler() instanceof HandlerMethod method && Marked.on(method);
            }
        }
        return false;
    }

    /**
     * Refuses marked handlers whose response the Servlet filter cannot hold back and keep: a
     * stream ({@code SseEmitter}, {@code ResponseBodyEmitter}, {@code StreamingResponseBody}) or an
     * asynchronous result ({@code Callable}, {@code DeferredResult}, {@code CompletionStage}, a
     * reactive {@code Publisher}), which would otherwise fail on each request. Call it once the
     * application context is refreshed; the Boot starter does, at startup.
     *
     * @throws IllegalStateException naming each such handler method
     */
    public void checkHandlers() {
        List<String> offenders = new ArrayList<>();
        for (RequestMappingHandlerMapping mapping : mappings()) {
            mapping.getHandlerMethods().forEach((info, method) -> {
                String streamed =
                        Marked.on(method) ? StreamedResponses.streamedBy(method, StreamedResponses.MVC) : null;
                if (streamed != null) {
                    offenders.add(StreamedResponses.name(method) + " returns " + streamed);
                }
            });
        }
        StreamedResponses.refuse(offenders);
    }

    private List<RequestMappingHandlerMapping> mappings() {
        List<RequestMappingHandlerMapping> found = mappings;
        if (found == null) {
            found = Marked.inOrder(beans, RequestMappingHandlerMapping.class);
            mappings = found;
        }
        return found;
    }

    /** The request, with attributes of its own layered over the original's: set or removed here only. */
    private static final class OwnAttributes extends HttpServletRequestWrapper {
        private final Map<String, Object> set = new HashMap<>();
        private final Set<String> removed = new HashSet<>();

        OwnAttributes(HttpServletRequest request) {
            super(request);
        }

        @Override
        public @Nullable Object getAttribute(String name) {
            if (removed.contains(name)) {
                return null;
            }
            Object own = set.get(name);
            return own != null ? own : super.getAttribute(name);
        }

        @Override
        public Enumeration<String> getAttributeNames() {
            Set<String> names = new LinkedHashSet<>(Collections.list(super.getAttributeNames()));
            names.removeAll(removed);
            names.addAll(set.keySet());
            return Collections.enumeration(names);
        }

        @Override
        public void setAttribute(String name, @Nullable Object value) {
            if (value == null) {
                removeAttribute(name);
                return;
            }
            set.put(name, value);
            removed.remove(name);
        }

        @Override
        public void removeAttribute(String name) {
            set.remove(name);
            removed.add(name);
        }
    }
}
