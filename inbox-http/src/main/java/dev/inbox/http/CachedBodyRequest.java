package dev.inbox.http;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The request with its body read once (for the fingerprint) and served again to the handler: as a
 * stream, a reader, and — for a form ({@code application/x-www-form-urlencoded}) — as parameters,
 * which the container can no longer parse from the consumed stream.
 */
final class CachedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] body;
    private @Nullable Map<String, String[]> form;

    CachedBodyRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new IllegalStateException(
                        "an Idempotency-Key route reads its body at once (no non-blocking I/O)");
            }
        };
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        return new BufferedReader(new InputStreamReader(getInputStream(), charset()));
    }

    @Override
    public @Nullable String getParameter(String name) {
        if (!isForm()) {
            return super.getParameter(name);
        }
        String[] values = getParameterMap().get(name);
        return values == null ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        if (!isForm()) {
            return super.getParameterMap();
        }
        Map<String, String[]> parsed = form;
        if (parsed == null) {
            Map<String, List<String>> values = new LinkedHashMap<>();
            add(values, getQueryString(), StandardCharsets.UTF_8);
            add(values, new String(body, charset()), charset());
            Map<String, String[]> arrays = new LinkedHashMap<>();
            values.forEach((name, list) -> arrays.put(name, list.toArray(String[]::new)));
            parsed = Collections.unmodifiableMap(arrays);
            form = parsed;
        }
        return parsed;
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return isForm() ? Collections.enumeration(getParameterMap().keySet()) : super.getParameterNames();
    }

    @Override
    public String @Nullable [] getParameterValues(String name) {
        return isForm() ? getParameterMap().get(name) : super.getParameterValues(name);
    }

    private boolean isForm() {
        String type = getContentType();
        return type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded");
    }

    private Charset charset() {
        String encoding = getCharacterEncoding();
        return encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
    }

    private static void add(Map<String, List<String>> values, @Nullable String encoded, Charset charset) {
        if (encoded == null || encoded.isEmpty()) {
            return;
        }
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), charset);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), charset);
            values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
    }
}
