package io.delaybridge.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply: a line per known node, {@code <id>
 * <ip:port@busport[,hostname]> <flags> <master id or -> <ping-sent> <pong-recv> <config-epoch> <link-state>
 * <slot or range>...}.
 */
record ClusterView(List<Node> nodes) {

    /** One line of {@code CLUSTER NODES}. */
    record Node(String id, int port, Set<String> flags, String masterId, List<int[]> slotRanges) {

        boolean isMaster() {
            return flags.contains("master");
        }

        boolean isReplica() {
            return flags.contains("slave");
        }

        /**
         * Flagged failing ({@code fail}), suspected ({@code fail?}), or not yet known ({@code handshake},
         * {@code noaddr}).
         */
        boolean isTroubled() {
            return flags.contains("fail")
                    || flags.contains("fail?")
                    || flags.contains("handshake")
                    || flags.contains("noaddr");
        }

        boolean servesSlot(int slot) {
            for (int[] range : slotRanges) {
                if (slot >= range[0] && slot <= range[1]) {
                    return true;
                }
            }
            return false;
        }

        int slotCount() {
            int count = 0;
            for (int[] range : slotRanges) {
                count += range[1] - range[0] + 1;
            }
            return count;
        }
    }

    static ClusterView parse(String clusterNodes) {
        List<Node> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\r?\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(" ");
            String address = f[1];
            int at = address.indexOf('@');
            String hostPort = at >= 0 ? address.substring(0, at) : address;
            int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            List<int[]> ranges = new ArrayList<>();
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being imported or migrated
                }
                int dash = f[i].indexOf('-');
                ranges.add(
                        dash < 0
                                ? new int[] {Integer.parseInt(f[i]), Integer.parseInt(f[i])}
                                : new int[] {
                                    Integer.parseInt(f[i].substring(0, dash)),
                                    Integer.parseInt(f[i].substring(dash + 1))
                                });
            }
            nodes.add(new Node(f[0], port, Set.of(f[2].split(",")), f[3], List.copyOf(ranges)));
        }
        return new ClusterView(List.copyOf(nodes));
    }

    Optional<Node> byId(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst();
    }

    /** The master that this view says serves {@code slot}. */
    Optional<Node> masterOfSlot(int slot) {
        return nodes.stream().filter(n -> n.isMaster() && n.servesSlot(slot)).findFirst();
    }
}
