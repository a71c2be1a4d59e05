package io.delaybridge.testkit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A minimal blocking RESP2 client over a plain socket: enough for readiness checks, INFO and the testkit's own
 * tests, with no Redis client library on the class path. Replies: simple and bulk strings as {@code String},
 * integers as {@code Long}, arrays as {@code List<Object>}, nil as {@code null}; an error reply throws
 * {@link ErrorReply}.
 */
final class Resp implements Closeable {

    /** An error reply from the server, such as {@code -LOADING ...} or {@code -NOAUTH ...}. */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    static Resp connect(int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(FreePorts.LOOPBACK, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            return new Resp(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Over TLS when {@code tls} is not null (host name not checked: the kit's own probes). */
    static Resp connect(int port, int timeoutMillis, SSLContext tls) throws IOException {
        if (tls == null) {
            return connect(port, timeoutMillis);
        }
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(FreePorts.LOOPBACK, port), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            plain.setTcpNoDelay(true);
            SSLSocket socket = (SSLSocket)
                    tls.getSocketFactory().createSocket(plain, FreePorts.LOOPBACK.getHostAddress(), port, true);
            socket.startHandshake();
            return new Resp(socket);
        } catch (IOException e) {
            plain.close();
            throw e;
        }
    }

    Object call(String... args) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append('*').append(args.length).append("\r\n");
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(bytes);
            out.write('\r');
            out.write('\n');
        }
        out.flush();
        return read();
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Redis closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("Redis closed the connection in a bulk reply");
                }
                readLine();
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    try {
                        items.add(read());
                    } catch (ErrorReply e) {
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type byte '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("Redis closed the connection in a reply line");
            }
            if (b == '\r') {
                int next = in.read();
                if (next == '\n') {
                    return buf.toString(StandardCharsets.UTF_8);
                }
                buf.write(b);
                if (next < 0) {
                    throw new EOFException("Redis closed the connection in a reply line");
                }
                buf.write(next);
            } else {
                buf.write(b);
            }
        }
    }

    /** The value of {@code field} in an INFO reply, or null. */
    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
