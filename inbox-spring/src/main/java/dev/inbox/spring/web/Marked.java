package dev.inbox.spring.web;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;

/** Whether a handler method is marked {@link IdempotentRoute}, on itself or its controller (MVC and WebFlux alike). */
final class Marked {

    private Marked() {}

    static boolean on(HandlerMethod method) {
        return method.hasMethodAnnotation(IdempotentRoute.class)
                || AnnotatedElementUtils.hasAnnotation(method.getBeanType(), IdempotentRoute.class);
    }
}
