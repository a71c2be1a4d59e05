package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.Audit;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

/**
 * Guards both ports (the message API and the admin servlet: tasks, metrics, health checks).
 *
 * <ul>
 *   <li>A mutating request ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) needs a configured bearer token
 *       or basic-auth user: without credentials it gets 401 and reaches nothing. With no credentials configured at
 *       all, mutating routes are disabled: 403 naming the settings to add.
 *   <li>A read ({@code GET}, {@code HEAD}, {@code OPTIONS}) passes, unless {@code authenticateReads} is set.
 *   <li>A body longer than {@code maxBodySize} gets 413, by its {@code Content-Length} or, if it has none, once that
 *       many bytes were read.
 * </ul>
 *
 * The authenticated principal is left in the request attribute {@link #PRINCIPAL} and, for the request thread, in
 * {@link Audit#principal()}, for the audit log.
 */
public final class AuthFilter implements Filter {

    public static final String PRINCIPAL = "io.delaybridge.principal";
    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    private final Credentials credentials;
    private final boolean authenticateReads;
    private final long maxBodyBytes;

    public AuthFilter(Credentials credentials, boolean authenticateReads, long maxBodyBytes) {
        this.credentials = credentials;
        this.authenticateReads = authenticateReads;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        boolean read = READS.contains(request.getMethod());
        if (!read || authenticateReads) {
            if (credentials.isEmpty()) {
                if (!read) {
                    reply(
                            response,
                            403,
                            "mutating routes are disabled: no credentials are configured. Set api.token,"
                                    + " api.tokens or api.users in the bridge configuration to enable "
                                    + request.getMethod() + " " + request.getRequestURI());
                    return;
                }
            } else {
                Optional<String> principal = credentials.authenticate(request.getHeader("Authorization"));
                if (principal.isEmpty()) {
                    response.setHeader("WWW-Authenticate", "Bearer realm=\"delay-bridge\"");
                    reply(
                            response,
                            401,
                            request.getHeader("Authorization") == null
                                    ? "authentication required: send Authorization: Bearer <token> or basic auth"
                                    : "the credentials are not valid");
                    return;
                }
                request.setAttribute(PRINCIPAL, principal.get());
            }
        }
        long length = request.getContentLengthLong();
        if (length > maxBodyBytes) {
            reply(
                    response,
                    413,
                    "request body of " + length + " bytes is larger than api.maxBodySize (" + maxBodyBytes + " bytes)");
            return;
        }
        Audit.principal((String) request.getAttribute(PRINCIPAL));
        try {
            chain.doFilter(length < 0 && !read ? new Bounded(request, maxBodyBytes) : request, response);
        } finally {
            Audit.principal(null);
        }
    }

    private static void reply(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.getOutputStream()
                .write(("{\"code\":" + status + ",\"message\":\"" + jsonEscape(message) + "\"}")
                        .getBytes(StandardCharsets.UTF_8));
    }

    static String jsonEscape(String s) {
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** A request whose body fails after {@code max} bytes: for bodies sent without a length (chunked). */
    private static final class Bounded extends HttpServletRequestWrapper {
        private final long max;

        Bounded(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            ServletInputStream in = super.getInputStream();
            return new ServletInputStream() {
                private long read;

                @Override
                public int read() throws IOException {
                    int b = in.read();
                    if (b >= 0) {
                        count(1);
                    }
                    return b;
                }

                @Override
                public int read(byte[] buffer, int off, int len) throws IOException {
                    int n = in.read(buffer, off, len);
                    if (n > 0) {
                        count(n);
                    }
                    return n;
                }

                private void count(int n) throws IOException {
                    read += n;
                    if (read > max) {
                        throw new IOException("request body is larger than api.maxBodySize (" + max + " bytes)");
                    }
                }

                @Override
                public boolean isFinished() {
                    return in.isFinished();
                }

                @Override
                public boolean isReady() {
                    return in.isReady();
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    in.setReadListener(listener);
                }
            };
        }
    }
}
