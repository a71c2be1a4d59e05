package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.FarMessages.FarMessage;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;

/** The JSON answer of {@code GET /messages/{id}}: a hot message (pending, in flight) or a far one. */
final class MessageViews {

    private MessageViews() {}

    static Map<String, Object> describe(StoredMessage m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.id());
        out.put("shard", m.shard());
        out.put("state", m.state() == MessageAdmin.State.PENDING ? "pending" : "in-flight");
        out.put("tier", "hot");
        due(out, m.dueAt());
        if (m.leaseUntil() >= 0) {
            out.put("leaseUntil", m.leaseUntil());
        }
        out.put("attempts", m.earlierAttempts());
        if (m.envelope() == null) {
            out.put("payload", "missing");
            return out;
        }
        out.put("sizeBytes", m.envelope().length);
        try {
            envelope(out, EnvelopeCodec.decode(m.envelope()));
        } catch (CorruptEnvelopeException e) {
            out.put("payload", "corrupt: " + e.getMessage());
        }
        return out;
    }

    /**
     * A far record: what Redis holds (due time, intake position) and, when the record was read from the intake, what
     * it holds; {@code payload} says whether it was read ({@code "intake"}), not asked for ({@code "not read"}) or is
     * gone from the log ({@code "missing"}).
     */
    static Map<String, Object> describe(FarMessage m, boolean asked) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.id());
        out.put("shard", m.shard());
        out.put("state", "far");
        out.put("tier", "far");
        due(out, m.dueAt());
        out.put("attempts", 0);
        out.put("intakePartition", m.partition());
        out.put("intakeOffset", m.offset());
        if (m.timestamp() != null) {
            out.put("timestamp", m.timestamp());
        }
        out.put("origin", m.origin());
        if (m.envelope() == null) {
            out.put("payload", asked ? "missing" : "not read");
            return out;
        }
        out.put("payload", "intake");
        out.put("sizeBytes", m.schedule().envelope().length);
        envelope(out, m.envelope());
        return out;
    }

    private static void due(Map<String, Object> out, long dueAt) {
        if (dueAt >= 0) {
            out.put("dueAt", dueAt);
            out.put("dueAtIso", Instant.ofEpochMilli(dueAt).toString());
        }
    }

    private static void envelope(Map<String, Object> out, Envelope e) {
        out.put("target", e.target());
        out.put("partition", e.partition());
        out.put("origin", e.origin());
        out.put("key", e.key() == null ? null : new String(e.key(), StandardCharsets.UTF_8));
        out.put("valueBytes", e.value() == null ? null : e.value().length);
        List<Map<String, String>> headers = new ArrayList<>();
        for (Header h : e.headers()) {
            Map<String, String> header = new LinkedHashMap<>();
            header.put("name", h.key());
            header.put("value", h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
            headers.add(header);
        }
        out.put("headers", headers);
    }
}
