package io.delaybridge.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on 127.0.0.1. A port found free can still be taken before the server binds it, so callers retry
 * with new ports when a server reports "Address already in use". Ports handed out once are not handed out again
 * by this JVM, so two servers started at the same moment never pick the same one.
 */
public final class FreePorts {

    static final InetAddress LOOPBACK = loopback();

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** A port free on 127.0.0.1 now, never handed out before by this JVM. */
    public static int pick() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(LOOPBACK, 0), 1);
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot find a free TCP port on 127.0.0.1", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("Cannot find a free TCP port on 127.0.0.1 that was not handed out before");
    }

    /**
     * A free port {@code p} such that {@code p + offset} is free too and below 65536: a Redis Cluster node listens
     * on its port and on its cluster bus port, port + 10000. Both are handed out.
     */
    static int pickWithPartner(int offset) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = pick();
            int partner = port + offset;
            if (partner < 65536 && isBindable(partner) && HANDED_OUT.add(partner)) {
                return port;
            }
        }
        throw new IllegalStateException(
                "Cannot find a free TCP port p on 127.0.0.1 with p + " + offset + " free as well");
    }

    private static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** True if something accepts TCP connections on 127.0.0.1:port. */
    static boolean isListening(int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), timeoutMillis);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
