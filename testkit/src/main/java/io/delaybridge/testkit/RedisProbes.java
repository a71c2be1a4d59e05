package io.delaybridge.testkit;

import java.io.IOException;
import java.util.function.Supplier;

/** Small blocking calls to the kit's Redis servers for the cluster and sentinel set-ups: a command, a wait, a check. */
final class RedisProbes {

    private RedisProbes() {}

    /** One command on a fresh connection; an error reply or a dead server becomes an IllegalStateException. */
    static Object call(RedisServer node, String... args) {
        try (Resp resp = node.connect(2000)) {
            return resp.call(args);
        } catch (IOException e) {
            throw new IllegalStateException(
                    args[0] + " " + (args.length > 1 ? args[1] : "") + " on " + node.port() + " failed: "
                            + e.getMessage(),
                    e);
        }
    }

    /** Polls {@code problem} every 20 ms until it returns null; fails with the last problem at the deadline. */
    static void await(long deadlineNanos, String what, Supplier<String> problem) {
        String last = "not checked";
        while (System.nanoTime() < deadlineNanos) {
            try {
                last = problem.get();
            } catch (IllegalStateException e) {
                last = e.getMessage();
            }
            if (last == null) {
                return;
            }
            ChildProcesses.pause(20);
        }
        throw new IllegalStateException("Timed out waiting for " + what + ": " + last);
    }

    /** Null if {@code replica} is linked to its master and not syncing. */
    static String replicationProblem(RedisServer replica) {
        String info = (String) call(replica, "INFO", "replication");
        String link = Resp.infoField(info, "master_link_status");
        String syncing = Resp.infoField(info, "master_sync_in_progress");
        return "up".equals(link) && "0".equals(syncing)
                ? null
                : "replica " + replica.port() + " has master_link_status:" + link + ", master_sync_in_progress:"
                        + syncing;
    }
}
