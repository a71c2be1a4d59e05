package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.Audit;
import io.delaybridge.bridge.store.DelayStore;
import io.delaybridge.bridge.store.MessageAdmin;
import io.delaybridge.bridge.store.MessageAdmin.StoredMessage;
import io.delaybridge.bridge.store.WriteOp;
import io.delaybridge.bridge.store.WriteResult;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.EnvelopeCodec;
import io.delaybridge.schemas.SeriesPlanner;
import io.delaybridge.schemas.SeriesRecord;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The series API (docs/recurring-schedules.md): one series by id, or the series of a target, each with its schedule,
 * its pending occurrence and the next ones ({@link SeriesPlanner}); {@code DELETE} ends a series, by the same store
 * operation as a {@code delay-cancel} record. A series is one stored message under its id, so a one-shot message is
 * not found here.
 */
@Path("/series")
@Produces(MediaType.APPLICATION_JSON)
public final class SeriesResource {

    /** At most this many occurrences in one answer's {@code next}. */
    static final int MAX_NEXT = 100;

    /** A listing looks at most at this many stored messages: a target's series among many one-shot messages. */
    static final int MAX_SCAN = 100_000;

    private static final int PAGE = 500;

    private final DelayStore store;
    private final MessageAdmin messages;

    public SeriesResource(DelayStore store, MessageAdmin messages) {
        this.store = store;
        this.messages = messages;
    }

    @GET
    @Path("/{id}")
    public Map<String, Object> get(@PathParam("id") String id, @QueryParam("next") @DefaultValue("5") int next) {
        MessagesResource.checkId(id);
        checkNext(next);
        return messages.inspect(id).flatMap(m -> describe(m, next)).orElseThrow(() -> ApiException.notFound(id));
    }

    /**
     * The pending series of {@code target}, by due time per shard. A series being delivered right now (in flight) is
     * left out until its next occurrence is stored.
     */
    @GET
    public Map<String, Object> list(
            @QueryParam("target") String target,
            @QueryParam("next") @DefaultValue("3") int next,
            @QueryParam("limit") @DefaultValue("100") int limit) {
        if (target == null || target.isBlank()) {
            throw ApiException.badField("target", "give the target topic: /series?target=<topic>");
        }
        checkNext(next);
        if (limit < 1 || limit > 1000) {
            throw ApiException.badField("limit", "limit " + limit + " is not between 1 and 1000");
        }
        List<Map<String, Object>> found = new ArrayList<>();
        long examined = 0;
        for (int shard = 0; shard < store.shardCount() && found.size() < limit && examined < MAX_SCAN; shard++) {
            examined += scan(shard, target, next, limit, MAX_SCAN - examined, found);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("target", target);
        out.put("series", found);
        out.put("examined", examined);
        out.put("scanLimitHit", examined >= MAX_SCAN);
        return out;
    }

    /** Adds {@code target}'s series of {@code shard} to {@code found}, up to {@code limit}; returns how many it read. */
    private long scan(int shard, String target, int next, int limit, long maxScan, List<Map<String, Object>> found) {
        long skip = 0;
        while (found.size() < limit && skip < maxScan) {
            List<StoredMessage> batch =
                    messages.scanDue(shard, 0, Long.MAX_VALUE, skip, (int) Math.min(PAGE, maxScan - skip));
            if (batch.isEmpty()) {
                break;
            }
            skip += batch.size();
            for (StoredMessage m : batch) {
                describe(m, next)
                        .filter(view -> target.equals(view.get("target")) && found.size() < limit)
                        .ifPresent(found::add);
            }
        }
        return skip;
    }

    @DELETE
    @Path("/{id}")
    public Map<String, Object> end(@PathParam("id") String id) {
        MessagesResource.checkId(id);
        if (messages.inspect(id).flatMap(m -> describe(m, 0)).isEmpty()) {
            throw ApiException.notFound(id);
        }
        WriteResult result = StoreWrites.write(store, new WriteOp.Cancel(id), "end of series '" + id + "'");
        Audit.log(Audit.principal(), "end-series", "id=" + id + " result=" + result);
        if (result != WriteResult.CANCELLED) {
            throw ApiException.notFound(id);
        }
        return Map.of("id", id, "ended", true);
    }

    /** The series view of a stored message; empty if it is no series (or its payload does not read). */
    static Optional<Map<String, Object>> describe(StoredMessage m, int next) {
        if (m.envelope() == null) {
            return Optional.empty();
        }
        Envelope envelope;
        SeriesRecord.State state;
        try {
            envelope = EnvelopeCodec.decode(m.envelope());
            state = SeriesRecord.state(envelope);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (state == null || state.pending() == null) {
            return Optional.empty();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.id());
        out.put("shard", m.shard());
        out.put("state", m.state() == MessageAdmin.State.PENDING ? "pending" : "in-flight");
        out.put("target", envelope.target());
        out.put("schedule", definition(state.definition()));
        List<Map<String, Object>> occurrences = new ArrayList<>();
        SeriesPlanner.Occurrence o = state.pending();
        while (o != null && occurrences.size() < next) {
            occurrences.add(occurrence(o));
            o = SeriesPlanner.following(state.series(), o);
        }
        out.put("pending", occurrence(state.pending()));
        long last = SeriesRecord.lastDelivered(envelope);
        if (last != SeriesRecord.NONE) {
            out.put("lastDeliveredDueAt", last);
            out.put("lastDeliveredDueAtIso", Instant.ofEpochMilli(last).toString());
        }
        out.put("next", occurrences);
        return Optional.of(out);
    }

    private static Map<String, Object> occurrence(SeriesPlanner.Occurrence o) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("number", o.number());
        out.put("dueAt", o.dueAtMillis());
        out.put("dueAtIso", Instant.ofEpochMilli(o.dueAtMillis()).toString());
        return out;
    }

    /** The series headers as written (and the record timestamp), from the state's encoded definition. */
    private static Map<String, String> definition(String encoded) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void checkNext(int next) {
        if (next < 0 || next > MAX_NEXT) {
            throw ApiException.badField("next", "next " + next + " is not between 0 and " + MAX_NEXT);
        }
    }
}
