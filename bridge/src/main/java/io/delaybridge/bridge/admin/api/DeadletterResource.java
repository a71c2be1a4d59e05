package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.Audit;
import io.delaybridge.bridge.delivery.DeadletterReplay;
import io.delaybridge.schemas.DelayText;
import io.delaybridge.schemas.ErrorCode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * Deadletter replay: {@code POST /deadletter/replay} starts one (202, with the URL to follow it), {@code GET
 * /deadletter/replay/{job}} reports its progress and final counts, {@code GET /deadletter/replay} lists recent ones.
 * One replay runs at a time; a second gets 409.
 */
@Path("/deadletter/replay")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class DeadletterResource {

    /** Body of a replay: filters (all optional) and the limit (required). Times are epoch ms or ISO-8601. */
    public record ReplayRequest(String errorCode, String target, String from, String to, Integer limit) {}

    private static final int KEEP_JOBS = 20;

    private final BiFunction<String, DeadletterReplay.Filter, DeadletterReplay> replays;
    private final ExecutorService executor;
    private final int maxReplay;
    private final Map<String, DeadletterReplay> jobs = new LinkedHashMap<>();
    private final AtomicLong sequence = new AtomicLong();

    /** @param replays makes the replay of a job id and a filter */
    public DeadletterResource(
            BiFunction<String, DeadletterReplay.Filter, DeadletterReplay> replays,
            ExecutorService executor,
            int maxReplay) {
        this.replays = replays;
        this.executor = executor;
        this.maxReplay = maxReplay;
    }

    private String nextId() {
        return "replay-" + sequence.incrementAndGet();
    }

    @POST
    public Response start(ReplayRequest body) {
        if (body == null || body.limit() == null) {
            throw ApiException.badField("limit", "is required: the most records to replay (at most " + maxReplay + ")");
        }
        if (body.limit() < 1 || body.limit() > maxReplay) {
            throw ApiException.badField("limit", body.limit() + " is outside 1.." + maxReplay + " (api.maxReplay)");
        }
        if (body.errorCode() != null
                && Arrays.stream(ErrorCode.values()).noneMatch(c -> c.name().equals(body.errorCode()))) {
            throw ApiException.badField(
                    "errorCode", "'" + body.errorCode() + "' is not one of " + Arrays.toString(ErrorCode.values()));
        }
        Long from = instant("from", body.from());
        Long to = instant("to", body.to());
        if (from != null && to != null && from > to) {
            throw ApiException.badField("to", "is before from");
        }
        DeadletterReplay replay;
        synchronized (jobs) {
            if (jobs.values().stream().anyMatch(DeadletterReplay::isRunning)) {
                throw ApiException.status(409, "a replay is already running; follow it at GET /deadletter/replay");
            }
            replay = replays.apply(
                    nextId(),
                    new DeadletterReplay.Filter(
                            blankToNull(body.errorCode()), blankToNull(body.target()), from, to, body.limit()));
            jobs.put(replay.id(), replay);
            while (jobs.size() > KEEP_JOBS) {
                jobs.remove(jobs.keySet().iterator().next());
            }
        }
        String who = Audit.principal();
        executor.execute(() -> {
            replay.run();
            DeadletterReplay.Progress p = replay.progress();
            Audit.log(
                    who,
                    "deadletter-replay-finished",
                    "job=" + p.id() + " state="
                            + p.state() + " scanned=" + p.scanned() + " replayed=" + p.acknowledged() + " failed="
                            + p.failed());
        });
        Audit.log(
                who,
                "deadletter-replay",
                "job=" + replay.id() + " errorCode="
                        + body.errorCode() + " target=" + body.target() + " from=" + body.from() + " to=" + body.to()
                        + " limit=" + body.limit());
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("job", replay.id());
        reply.put("status", "/deadletter/replay/" + replay.id());
        reply.put("progress", replay.progress());
        return Response.accepted(reply).build();
    }

    @GET
    @Path("/{job}")
    public DeadletterReplay.Progress progress(@PathParam("job") String job) {
        synchronized (jobs) {
            DeadletterReplay replay = jobs.get(job);
            if (replay == null) {
                throw ApiException.status(404, "no replay job '" + job + "' (the last " + KEEP_JOBS + " are kept)");
            }
            return replay.progress();
        }
    }

    @GET
    public List<DeadletterReplay.Progress> list() {
        synchronized (jobs) {
            List<DeadletterReplay.Progress> all = new ArrayList<>();
            jobs.values().forEach(r -> all.add(r.progress()));
            return all;
        }
    }

    /** Stops a running replay when the application stops. */
    public void stopAll() {
        synchronized (jobs) {
            jobs.values().forEach(DeadletterReplay::stop);
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static Long instant(String field, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return DelayText.parseInstantMillis(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField(field, "'" + text + "' is not epoch ms or an ISO-8601 instant");
        }
    }
}
