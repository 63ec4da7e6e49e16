package dev.inbox.http;

import dev.inbox.tck.http.HttpKit;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The HTTP kit's handler as a servlet: what {@link HttpKit#respond} answers, as it answers it. */
final class KitServlet extends HttpServlet {

    private final transient HttpKit kit;

    KitServlet(HttpKit kit) {
        this.kit = kit;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        kit.respond(request.getRequestURI(), request.getQueryString())
                .writeTo(response::setStatus, response::addHeader, response.getOutputStream());
    }
}
