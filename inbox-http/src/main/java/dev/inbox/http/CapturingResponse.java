package dev.inbox.http;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The handler's response, held back until it is done so that it can be kept and then sent: the
 * status and the body are captured here (headers go to the real response, which is not committed
 * before the body is written). A body over {@code limit} bytes cannot be kept: from there on it is
 * streamed to the client ({@link #overflowed()}). An error sent with {@code sendError} is passed to
 * the container, which renders it, and is never kept ({@link #errorSent()}).
 */
final class CapturingResponse extends HttpServletResponseWrapper {

    private final HttpServletResponse response;
    private final int limit;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private int status = SC_OK;
    private @Nullable Integer error;
    private @Nullable String errorMessage;
    private @Nullable ServletOutputStream stream;
    private @Nullable PrintWriter writer;
    private @Nullable ServletOutputStream passThrough;
    private long length;

    CapturingResponse(HttpServletResponse response, int limit) {
        super(response);
        this.response = response;
        this.limit = limit;
    }

    @Override
    public void setStatus(int sc) {
        status = sc;
    }

    @Override
    public int getStatus() {
        return error != null ? error : status;
    }

    @Override
    public void sendError(int sc) {
        sendError(sc, null);
    }

    @Override
    public void sendError(int sc, @Nullable String msg) {
        error = sc;
        errorMessage = msg;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, boolean clearBuffer) {
        sendRedirect(location, SC_FOUND, clearBuffer);
    }

    @Override
    public void sendRedirect(String location, int sc) {
        sendRedirect(location, sc, true);
    }

    @Override
    public void sendRedirect(String location, int sc, boolean clearBuffer) {
        if (clearBuffer) {
            resetBuffer();
        }
        status = sc;
        response.setHeader("Location", location);
    }

    @Override
    public void setContentLength(int len) {
        // the length is the captured body's, set when it is sent
    }

    @Override
    public void setContentLengthLong(long len) {
        // the length is the captured body's, set when it is sent
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was called on this response");
        }
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    capture(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new IllegalStateException(
                            "an Idempotency-Key route holds its response until the handler is done (no non-blocking I/O)");
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (stream != null && writer == null) {
            throw new IllegalStateException("getOutputStream() was called on this response");
        }
        if (writer == null) {
            ServletOutputStream out = getOutputStream();
            writer = new PrintWriter(new OutputStreamWriter(out, Charset.forName(response.getCharacterEncoding())));
            stream = out;
        }
        return writer;
    }

    @Override
    public void flushBuffer() throws IOException {
        if (writer != null) {
            writer.flush();
        }
        if (passThrough != null) {
            passThrough.flush();
        }
    }

    @Override
    public boolean isCommitted() {
        return passThrough != null || error != null || response.isCommitted();
    }

    @Override
    public void reset() {
        if (passThrough != null) {
            throw new IllegalStateException("the response was committed");
        }
        response.reset();
        buffer.reset();
        status = SC_OK;
        error = null;
        errorMessage = null;
        writer = null; // a reset response may be written either way again
        stream = null;
        length = 0;
    }

    @Override
    public void resetBuffer() {
        if (passThrough != null) {
            throw new IllegalStateException("the response was committed");
        }
        buffer.reset();
        length = 0;
    }

    private void capture(byte[] b, int off, int len) throws IOException {
        length += len;
        if (passThrough != null) {
            passThrough.write(b, off, len);
            return;
        }
        buffer.write(b, off, len);
        if (buffer.size() > limit) {
            response.setStatus(status);
            passThrough = response.getOutputStream();
            buffer.writeTo(passThrough);
            buffer.reset();
        }
    }

    /** True when the handler called {@code sendError}. */
    boolean errorSent() {
        return error != null;
    }

    /** True when the body grew over the limit and was streamed to the client. */
    boolean overflowed() {
        flushWriter();
        return passThrough != null;
    }

    /** The body's length so far. */
    long length() {
        flushWriter();
        return length;
    }

    /** The captured status, the real response's headers and the captured body. */
    StoredResponse captured() {
        flushWriter();
        List<StoredResponse.Header> headers = new ArrayList<>();
        if (response.getContentType() != null) {
            headers.add(new StoredResponse.Header("Content-Type", response.getContentType()));
        }
        for (String name : response.getHeaderNames()) {
            if (name.equalsIgnoreCase("Content-Type") || name.equalsIgnoreCase("Content-Length")) {
                continue;
            }
            for (String value : response.getHeaders(name)) {
                headers.add(new StoredResponse.Header(name, value));
            }
        }
        return new StoredResponse(status, headers, buffer.toByteArray());
    }

    /** Sends what was held back: the error to the container, or the status and the body. */
    void send() throws IOException {
        flushWriter();
        if (error != null) {
            if (errorMessage == null) {
                response.sendError(error);
            } else {
                response.sendError(error, errorMessage);
            }
        } else if (passThrough != null) {
            passThrough.flush();
        } else {
            response.setStatus(status);
            response.setContentLength(buffer.size());
            buffer.writeTo(response.getOutputStream());
        }
    }

    private void flushWriter() {
        if (writer != null) {
            writer.flush();
        }
    }
}
