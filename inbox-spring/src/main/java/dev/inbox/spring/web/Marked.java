package dev.inbox.spring.web;

import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.web.method.HandlerMethod;

/**
 * Whether a handler method is marked {@link IdempotentRoute}, on itself or its controller, and
 * where the handler mappings are: MVC's and WebFlux's alike.
 */
final class Marked {

    private Marked() {}

    static boolean on(HandlerMethod method) {
        return method.hasMethodAnnotation(IdempotentRoute.class)
                || AnnotatedElementUtils.hasAnnotation(method.getBeanType(), IdempotentRoute.class);
    }

    /** The beans of {@code type} (a framework's handler mappings), in their order: the order requests meet them. */
    static <T> List<T> inOrder(ListableBeanFactory beans, Class<T> type) {
        List<T> all = new ArrayList<>(beans.getBeansOfType(type).values());
        AnnotationAwareOrderComparator.sort(all);
        return List.copyOf(all);
    }
}
