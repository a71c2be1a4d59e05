package io.delaybridge.bridge.admin.api;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.Audit;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.RescheduleResult;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.CorruptEnvelopeException;
import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.header.Header;

/**
 * The message API: look up, cancel, reschedule and fire one message by id; cancel many by target and due time.
 *
 * <p>Cancels go through the same store operation as a {@code delay-cancel} intake record; reschedules move the due
 * time of a pending message in one script. Every change is written to the audit log.
 */
@Path("/messages")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class MessagesResource {

    /** Ids longer than this are refused (a Kafka header value can be longer, but no sane id is). */
    static final int MAX_ID_LENGTH = 1024;

    private static final int BULK_PAGE = 500;

    /** Body of a reschedule: exactly one of {@code dueAt} (epoch ms or ISO-8601) and {@code delay} (from now). */
    public record RescheduleRequest(String dueAt, String delay) {}

    /** Body of a bulk cancel. */
    public record BulkCancelRequest(String target, String dueFrom, String dueTo, Integer limit) {}

    private final DelayStore store;
    private final MessageAdmin messages;
    private final ApiSettings settings;
    private final long maxDelayMillis;
    private final MetricRegistry metrics;

    public MessagesResource(
            DelayStore store,
            MessageAdmin messages,
            ApiSettings settings,
            long maxDelayMillis,
            MetricRegistry metrics) {
        this.store = store;
        this.messages = messages;
        this.settings = settings;
        this.maxDelayMillis = maxDelayMillis;
        this.metrics = metrics;
    }

    @GET
    @Path("/{id}")
    public Map<String, Object> get(@PathParam("id") String id) {
        checkId(id);
        StoredMessage message = messages.inspect(id).orElseThrow(() -> ApiException.notFound(id));
        return describe(message);
    }

    @DELETE
    @Path("/{id}")
    public Map<String, Object> cancel(@PathParam("id") String id) {
        checkId(id);
        WriteResult result = write(new WriteOp.Cancel(id), "cancel of message '" + id + "'");
        Audit.log(Audit.principal(), "cancel", "id=" + id + " result=" + result);
        if (result != WriteResult.CANCELLED) {
            throw ApiException.notFound(id);
        }
        metrics.meter("delay.cancelled").mark();
        return Map.of("id", id, "cancelled", true);
    }

    @POST
    @Path("/{id}/reschedule")
    public Map<String, Object> reschedule(@PathParam("id") String id, RescheduleRequest body) {
        checkId(id);
        if (body == null) {
            throw ApiException.badField(
                    "dueAt",
                    "the body must be JSON with dueAt (epoch ms or ISO-8601) or delay"
                            + " (e.g. \"30s\", \"5m\", \"PT1H\")");
        }
        boolean hasDue = body.dueAt() != null && !body.dueAt().isBlank();
        boolean hasDelay = body.delay() != null && !body.delay().isBlank();
        if (hasDue == hasDelay) {
            throw ApiException.badField(
                    hasDue ? "delay" : "dueAt",
                    "give exactly one of dueAt (epoch ms or ISO-8601) and delay (e.g. \"30s\")");
        }
        // parse and check the body before touching the store: a bad request changes and reads nothing
        long dueAt;
        if (hasDue) {
            try {
                dueAt = DelayText.parseInstantMillis(body.dueAt());
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("dueAt", "'" + body.dueAt() + "' is not epoch ms or an ISO-8601 instant");
            }
            if (dueAt - store.now() > maxDelayMillis) {
                throw ApiException.badField(
                        "dueAt", "is more than intake.maxDelay (" + DelayText.formatMillis(maxDelayMillis) + ") ahead");
            }
        } else {
            long delay;
            try {
                delay = DelayText.parseDelayMillis(body.delay());
            } catch (IllegalArgumentException e) {
                throw ApiException.badField(
                        "delay", "'" + body.delay() + "' is not a delay (e.g. 1500, 30s, 5m," + " PT1H)");
            }
            if (delay > maxDelayMillis) {
                throw ApiException.badField(
                        "delay", "is longer than intake.maxDelay (" + DelayText.formatMillis(maxDelayMillis) + ")");
            }
            dueAt = store.now() + delay;
        }
        return move(id, dueAt, "reschedule");
    }

    @POST
    @Path("/{id}/fire-now")
    public Map<String, Object> fireNow(@PathParam("id") String id) {
        checkId(id);
        return move(id, store.now(), "fire-now");
    }

    @POST
    @Path("/cancel")
    public Map<String, Object> bulkCancel(BulkCancelRequest body) {
        if (body == null || body.target() == null || body.target().isBlank()) {
            throw ApiException.badField("target", "is required: the target topic whose pending messages to cancel");
        }
        if (body.limit() == null) {
            throw ApiException.badField(
                    "limit", "is required: the most messages to cancel (at most " + settings.maxBulkCancel() + ")");
        }
        if (body.limit() < 1 || body.limit() > settings.maxBulkCancel()) {
            throw ApiException.badField(
                    "limit", body.limit() + " is outside 1.." + settings.maxBulkCancel() + " (api.maxBulkCancel)");
        }
        long from = instant("dueFrom", body.dueFrom(), Long.MIN_VALUE / 2);
        long to = instant("dueTo", body.dueTo(), Long.MAX_VALUE / 2);
        if (from > to) {
            throw ApiException.badField("dueTo", "is before dueFrom");
        }
        int cancelled = 0;
        long examined = 0;
        boolean scanLimitHit = false;
        for (int shard = 0; shard < store.shardCount() && cancelled < body.limit(); shard++) {
            long skip = 0; // messages in range that stay (other targets); cancelled ones leave the range
            while (cancelled < body.limit()) {
                if (examined >= settings.maxBulkScan()) {
                    scanLimitHit = true;
                    break;
                }
                int page = (int) Math.min(BULK_PAGE, settings.maxBulkScan() - examined);
                List<StoredMessage> batch = messages.scanDue(shard, from, to, skip, page);
                if (batch.isEmpty()) {
                    break;
                }
                examined += batch.size();
                List<WriteOp> cancels = new ArrayList<>();
                for (StoredMessage m : batch) {
                    if (cancels.size() + cancelled < body.limit()
                            && body.target().equals(targetOf(m))) {
                        cancels.add(new WriteOp.Cancel(m.id()));
                    } else {
                        skip++;
                    }
                }
                for (WriteResult result : writeAll(cancels, "bulk cancel on shard " + shard)) {
                    if (result == WriteResult.CANCELLED) {
                        cancelled++;
                    } else {
                        skip--; // delivered or cancelled meanwhile: it left the range, like a cancelled one
                    }
                }
                if (batch.size() < page) {
                    break;
                }
            }
        }
        metrics.meter("delay.cancelled").mark(cancelled);
        Audit.log(
                Audit.principal(),
                "bulk-cancel",
                "target=" + body.target() + " dueFrom=" + body.dueFrom()
                        + " dueTo=" + body.dueTo() + " limit=" + body.limit() + " cancelled=" + cancelled
                        + " examined=" + examined);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("target", body.target());
        reply.put("cancelled", cancelled);
        reply.put("examined", examined);
        reply.put("limitReached", cancelled >= body.limit());
        reply.put("scanLimitReached", scanLimitHit);
        return reply;
    }

    private Map<String, Object> move(String id, long dueAt, String action) {
        RescheduleResult result = messages.reschedule(id, dueAt);
        Audit.log(Audit.principal(), action, "id=" + id + " dueAt=" + dueAt + " result=" + result);
        switch (result) {
            case NOT_FOUND -> throw ApiException.notFound(id);
            case IN_FLIGHT ->
                throw ApiException.status(
                        409, "message '" + id + "' is being delivered right now; it" + " cannot be moved");
            default -> {
                metrics.meter("delay.api." + action).mark();
                Map<String, Object> reply = new LinkedHashMap<>();
                reply.put("id", id);
                reply.put("dueAt", dueAt);
                reply.put("dueAtIso", Instant.ofEpochMilli(dueAt).toString());
                return reply;
            }
        }
    }

    private static String targetOf(StoredMessage m) {
        if (m.envelope() == null) {
            return null;
        }
        try {
            return EnvelopeCodec.decode(m.envelope()).target();
        } catch (CorruptEnvelopeException e) {
            return null;
        }
    }

    private static long instant(String field, String text, long absent) {
        if (text == null || text.isBlank()) {
            return absent;
        }
        try {
            return DelayText.parseInstantMillis(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField(field, "'" + text + "' is not epoch ms or an ISO-8601 instant");
        }
    }

    private WriteResult write(WriteOp op, String operation) {
        return writeAll(List.of(op), operation).get(0);
    }

    private List<WriteResult> writeAll(List<WriteOp> ops, String operation) {
        if (ops.isEmpty()) {
            return List.of();
        }
        try {
            return store.write(ops).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException se) {
                throw se;
            }
            throw new StoreUnavailableException(operation + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new StoreUnavailableException(operation + ": no answer from Redis within 30 s", e);
        }
    }

    static void checkId(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw ApiException.badField("id", "must be 1 to " + MAX_ID_LENGTH + " characters");
        }
    }

    static Map<String, Object> describe(StoredMessage m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.id());
        out.put("shard", m.shard());
        out.put("state", m.state() == MessageAdmin.State.PENDING ? "pending" : "in-flight");
        if (m.dueAt() >= 0) {
            out.put("dueAt", m.dueAt());
            out.put("dueAtIso", Instant.ofEpochMilli(m.dueAt()).toString());
        }
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
            Envelope e = EnvelopeCodec.decode(m.envelope());
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
        } catch (CorruptEnvelopeException e) {
            out.put("payload", "corrupt: " + e.getMessage());
        }
        return out;
    }
}
