package io.delaybridge.bridge.admin.api;

import com.codahale.metrics.MetricRegistry;
import io.delaybridge.bridge.admin.Audit;
import io.delaybridge.bridge.admin.FarMessages;
import io.delaybridge.bridge.admin.FarMessages.FarMessage;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.RescheduleResult;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.DelayText;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The message API: look up, cancel, reschedule and fire one message by id; cancel many by target and due time.
 *
 * <p>Cancels go through the same store operation as a {@code delay-cancel} intake record; reschedules move the due
 * time of a pending message in one script. Every change is written to the audit log.
 *
 * <p>Each route reaches far records too ({@link FarMessages}): a lookup that Redis' hot tier does not answer tries the
 * far tier, a fire-now or reschedule of a far record first stores it hot (read back from the intake), and a bulk
 * cancel reads the far records due in its range from the intake to learn their targets.
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
    private final FarMessages far;
    private final ApiSettings settings;
    private final long maxDelayMillis;
    private final MetricRegistry metrics;

    public MessagesResource(
            DelayStore store,
            MessageAdmin messages,
            FarMessages far,
            ApiSettings settings,
            long maxDelayMillis,
            MetricRegistry metrics) {
        this.store = store;
        this.messages = messages;
        this.far = far;
        this.settings = settings;
        this.maxDelayMillis = maxDelayMillis;
        this.metrics = metrics;
    }

    @GET
    @Path("/{id}")
    public Map<String, Object> get(
            @PathParam("id") String id, @QueryParam("intake") @DefaultValue("true") boolean intake) {
        checkId(id);
        Optional<StoredMessage> hot = messages.inspect(id);
        if (hot.isPresent()) {
            return MessageViews.describe(hot.get());
        }
        FarMessage message = farFind(id, intake).orElseThrow(() -> ApiException.notFound(id));
        return MessageViews.describe(message, intake);
    }

    @DELETE
    @Path("/{id}")
    public Map<String, Object> cancel(@PathParam("id") String id) {
        checkId(id);
        // a default id's far record keeps no state by id: its cancel answers NOT_FOUND and takes effect all the same
        // (its thaw is dropped), so whether it waited far is looked up first
        boolean far = isDefaultId(id) && farFind(id, false).isPresent();
        WriteResult result = StoreWrites.write(store, new WriteOp.Cancel(id), "cancel of message '" + id + "'");
        Audit.log(Audit.principal(), "cancel", "id=" + id + " result=" + result + (far ? " tier=far" : ""));
        if (result != WriteResult.CANCELLED && !(far && result == WriteResult.NOT_FOUND)) {
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
        BulkCancel run = new BulkCancel(
                        store,
                        messages,
                        far,
                        new BulkCancel.Selection(body.target(), from, to),
                        body.limit(),
                        settings.maxBulkScan())
                .run();
        int cancelled = run.cancelled;
        long examined = run.examined;
        boolean scanLimitHit = run.scanLimitHit;
        metrics.meter("delay.cancelled").mark(cancelled);
        Audit.log(
                Audit.principal(),
                "bulk-cancel",
                "target=" + body.target() + " dueFrom=" + body.dueFrom()
                        + " dueTo=" + body.dueTo() + " limit=" + body.limit() + " cancelled=" + cancelled
                        + " examined=" + examined + " far=" + run.farCancelled);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("target", body.target());
        reply.put("cancelled", cancelled);
        reply.put("examined", examined);
        reply.put("farCancelled", run.farCancelled);
        reply.put("farExamined", run.farExamined);
        if (run.farError != null) {
            reply.put("farError", run.farError);
        }
        reply.put("limitReached", cancelled >= body.limit());
        reply.put("scanLimitReached", scanLimitHit);
        return reply;
    }

    private Map<String, Object> move(String id, long dueAt, String action) {
        RescheduleResult result = messages.reschedule(id, dueAt);
        String tier = "hot";
        if (result == RescheduleResult.NOT_FOUND && farThaw(id)) {
            tier = "far"; // stored hot now with its due time: moved like any hot message
            result = messages.reschedule(id, dueAt);
        }
        Audit.log(Audit.principal(), action, "id=" + id + " dueAt=" + dueAt + " tier=" + tier + " result=" + result);
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
                reply.put("tier", tier);
                return reply;
            }
        }
    }

    private boolean isDefaultId(String id) {
        return far.isDefaultId(id);
    }

    private Optional<FarMessage> farFind(String id, boolean readRecord) {
        try {
            return far.find(id, readRecord);
        } catch (FarMessages.IntakeReadException e) {
            throw intakeUnavailable(e);
        }
    }

    private boolean farThaw(String id) {
        try {
            return far.thaw(id).isPresent();
        } catch (FarMessages.IntakeReadException e) {
            throw intakeUnavailable(e);
        }
    }

    static ApiException intakeUnavailable(FarMessages.IntakeReadException e) {
        return ApiException.status(
                503, "the far tier's records are read from the intake, which failed: " + e.getMessage());
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

    static void checkId(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw ApiException.badField("id", "must be 1 to " + MAX_ID_LENGTH + " characters");
        }
    }
}
