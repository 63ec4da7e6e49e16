package dev.inbox.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The handler behind the filter in the tests: it counts its runs per path and answers as the query
 * asks — {@code sleep=ms} first, then {@code mode}: a payment created (default: 201, Location, a
 * cookie, a JSON body echoing the request's), {@code fail-first} (500 on the first run),
 * {@code throw-first}, {@code bad-request} (400 with a body), {@code send-error} (404 by
 * {@code sendError}), {@code reset} (writes, resets, answers 202 by the stream), {@code large} (a
 * body of {@code bytes}), {@code form} (echoes parameter
 * {@code amount}), {@code bad-status} (status 99), {@code hold} (waits for {@link #release()}, then as the default).
 */
final class PaymentsServlet extends HttpServlet {

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final CountDownLatch held = new CountDownLatch(1);

    /** Lets every run of {@code mode=hold} go on (they wait for this, at most 30 s). */
    void release() {
        held.countDown();
    }

    int runs(String path) {
        AtomicInteger count = runs.get(path);
        return count == null ? 0 : count.get();
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        int run = runs.computeIfAbsent(request.getRequestURI(), p -> new AtomicInteger())
                .incrementAndGet();
        String sleep = request.getParameter("sleep");
        if (sleep != null) {
            try {
                Thread.sleep(Long.parseLong(sleep));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        String mode = String.valueOf(request.getParameter("mode"));
        switch (mode) {
            case "bad-status" -> {
                response.setStatus(99); // no HTTP status: the core cannot keep it
                response.getWriter().write("odd");
                return;
            }
            case "hold" -> {
                try {
                    held.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            case "fail-first" -> {
                if (run == 1) {
                    response.setStatus(500);
                    response.getWriter().write("try again");
                    return;
                }
            }
            case "throw-first" -> {
                if (run == 1) {
                    throw new IllegalStateException("the handler failed");
                }
            }
            case "bad-request" -> {
                response.setStatus(400);
                response.setContentType("application/json");
                response.getWriter().write("{\"error\":\"amount missing\",\"run\":" + run + "}");
                return;
            }
            case "send-error" -> {
                response.sendError(404, "no such account");
                return;
            }
            case "large" -> {
                byte[] chunk = new byte[8192];
                java.util.Arrays.fill(chunk, (byte) 'x');
                long bytes = Long.parseLong(request.getParameter("bytes"));
                response.setContentType("text/plain");
                for (long written = 0; written < bytes; written += chunk.length) {
                    response.getOutputStream().write(chunk, 0, (int) Math.min(chunk.length, bytes - written));
                }
                return;
            }
            case "reset" -> {
                response.getWriter().write("a first try at an answer");
                response.setHeader("X-Discarded", "yes");
                response.reset();
                response.setStatus(202);
                response.setContentType("text/plain");
                response.getOutputStream().write(("accepted " + run).getBytes(StandardCharsets.UTF_8));
                return;
            }
            case "form" -> {
                response.setStatus(201);
                response.setContentType("text/plain");
                response.getWriter().write("amount=" + request.getParameter("amount") + " run=" + run);
                return;
            }
            default -> {}
        }
        String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        response.setStatus(201);
        response.setHeader("Location", request.getRequestURI() + "/" + run);
        response.addCookie(new jakarta.servlet.http.Cookie("session", "s" + run));
        response.setHeader("X-Run", Integer.toString(run));
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter()
                .write("{\"run\":" + run + ",\"received\":" + (body.isEmpty() ? "null" : body) + ",\"note\":\"ü\"}");
    }
}
