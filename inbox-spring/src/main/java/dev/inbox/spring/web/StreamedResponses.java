package dev.inbox.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.web.method.HandlerMethod;

/**
 * Which marked handler methods answer with a response an {@code Idempotency-Key} filter cannot hold
 * back and keep: a stream, or (Spring MVC) an asynchronous result, which the Servlet filter does
 * not support. Found by the return type (and, for {@code ResponseEntity}/{@code HttpEntity}, its
 * body type); the routes classes add what their framework streams by media type.
 */
final class StreamedResponses {

    /** Spring MVC's asynchronous and streamed return types (those present on the class path). */
    static final Set<String> MVC = Set.of(
            "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
            "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
            "org.springframework.web.context.request.async.DeferredResult",
            "org.springframework.web.context.request.async.WebAsyncTask",
            "java.util.concurrent.Callable",
            "java.util.concurrent.CompletionStage",
            "org.reactivestreams.Publisher");

    /** WebFlux's server-sent events (other streams are told by their media type). */
    static final Set<String> WEBFLUX = Set.of("org.springframework.http.codec.ServerSentEvent");

    private StreamedResponses() {}

    /** The first of {@code types} that the method's return type, or its entity's body type, or any generic in them is. */
    static @Nullable String streamedBy(HandlerMethod method, Set<String> types) {
        List<ResolvableType> seen = new ArrayList<>();
        collect(ResolvableType.forMethodReturnType(method.getMethod()), seen, 0);
        for (ResolvableType type : seen) {
            Class<?> resolved = type.resolve();
            if (resolved == null) {
                continue;
            }
            for (String name : types) {
                if (isA(resolved, name)) {
                    return name.substring(name.lastIndexOf('.') + 1);
                }
            }
        }
        return null;
    }

    private static void collect(ResolvableType type, List<ResolvableType> seen, int depth) {
        if (type == ResolvableType.NONE || depth > 3) {
            return;
        }
        seen.add(type);
        for (ResolvableType generic : type.getGenerics()) {
            collect(generic, seen, depth + 1);
        }
    }

    private static boolean isA(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name) || implementsNamed(c, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean implementsNamed(Class<?> type, String name) {
        for (Class<?> i : type.getInterfaces()) {
            if (i.getName().equals(name) || implementsNamed(i, name)) {
                return true;
            }
        }
        return false;
    }

    /** {@code com.example.Payments.events()}: the handler's controller and method. */
    static String name(HandlerMethod method) {
        return method.getBeanType().getName() + "." + method.getMethod().getName() + "()";
    }

    /** The failure naming each offending handler, or nothing. */
    static void refuse(List<String> offenders) {
        if (!offenders.isEmpty()) {
            throw new IllegalStateException("an @IdempotentRoute handler must answer with a whole response that the"
                    + " Idempotency-Key filter can hold back and keep, but these stream or answer asynchronously: "
                    + String.join("; ", offenders)
                    + ". Remove @IdempotentRoute from them (or from their controller), or answer whole responses.");
        }
    }
}
