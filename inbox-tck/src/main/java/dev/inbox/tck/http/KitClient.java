package dev.inbox.tck.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The HTTP kits' client: requests to the harness's server, with the kit's key and principal headers. */
final class KitClient {

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Supplier<@Nullable HttpHarness> harness;

    KitClient(Supplier<@Nullable HttpHarness> harness) {
        this.harness = harness;
    }

    /** A path of the kit's handler that no other test uses. */
    static String path() {
        return HttpKit.PATH_PREFIX + "payments/" + UUID.randomUUID();
    }

    /** A key no other test uses. */
    static String key() {
        return UUID.randomUUID().toString();
    }

    /** A JSON request to {@code pathAndQuery} on the harness's server, without a method yet. */
    HttpRequest.Builder request(String pathAndQuery) {
        HttpHarness started = harness.get();
        if (started == null) {
            throw new IllegalStateException("the harness did not start");
        }
        return HttpRequest.newBuilder(URI.create(started.base() + pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
    }

    /** Sends {@code request} and reads the whole body. */
    HttpResponse<byte[]> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** POSTs {@code json} with the key and principal headers when they are not null. */
    HttpResponse<byte[]> post(String pathAndQuery, @Nullable String key, @Nullable String principal, String json)
            throws Exception {
        HttpRequest.Builder request =
                request(pathAndQuery).POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (key != null) {
            request.header(HttpKit.KEY_HEADER, key);
        }
        if (principal != null) {
            request.header(HttpKit.PRINCIPAL_HEADER, principal);
        }
        return send(request.build());
    }
}
