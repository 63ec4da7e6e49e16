package dev.inbox.http;

import dev.inbox.keys.JsonCanonicalizer;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What makes two requests under one key "the same request": SHA-256 over the method, the path, the
 * query and the body, each part length-prefixed so no two different requests run together into one
 * input. A JSON body ({@code application/json} or any {@code +json} type) counts by its RFC 8785
 * canonical form, so a client that serializes the same body again — other member order, other
 * whitespace, {@code 1.0} for {@code 1} — sends the same request; any other body, or JSON that does
 * not parse, counts byte for byte.
 */
final class RequestFingerprint {

    private RequestFingerprint() {}

    static String of(IdempotentRequest request) {
        MessageDigest sha256 = sha256();
        part(sha256, request.method().getBytes(StandardCharsets.UTF_8));
        part(sha256, request.path().getBytes(StandardCharsets.UTF_8));
        part(sha256, request.query() == null ? new byte[0] : request.query().getBytes(StandardCharsets.UTF_8));
        part(sha256, body(request.contentType(), request.body()));
        return "sha256:" + HexFormat.of().formatHex(sha256.digest());
    }

    private static byte[] body(@Nullable String contentType, byte[] body) {
        if (isJson(contentType)) {
            try {
                String text = StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(body))
                        .toString();
                return ("json:" + JsonCanonicalizer.canonicalize(text)).getBytes(StandardCharsets.UTF_8);
            } catch (CharacterCodingException | IllegalArgumentException notCanonicalJson) {
                // counted byte for byte below: the handler will answer this body as it sees fit
            }
        }
        byte[] tagged = new byte[body.length + 6];
        System.arraycopy("bytes:".getBytes(StandardCharsets.US_ASCII), 0, tagged, 0, 6);
        System.arraycopy(body, 0, tagged, 6, body.length);
        return tagged;
    }

    static boolean isJson(@Nullable String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String type = (parameters < 0 ? contentType : contentType.substring(0, parameters))
                .strip()
                .toLowerCase(Locale.ROOT);
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    private static void part(MessageDigest digest, byte[] bytes) {
        digest.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        digest.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
