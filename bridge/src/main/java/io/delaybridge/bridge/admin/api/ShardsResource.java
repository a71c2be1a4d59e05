package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.admin.ShardReport;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Read-only views of the shards: {@code GET /shards} and {@code GET /pending/histogram}. */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public final class ShardsResource {

    private final ShardReport report;

    public ShardsResource(ShardReport report) {
        this.report = report;
    }

    @GET
    @Path("shards")
    public Map<String, Object> shards() {
        List<ShardReport.Shard> shards = report.shards();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("redisTime", report.redisNow());
        out.putAll(report.totals(shards));
        out.put("shards", shards);
        return out;
    }

    @GET
    @Path("pending/histogram")
    public Map<String, Object> histogram(@QueryParam("shard") String shard) {
        Integer which = null;
        if (shard != null) {
            try {
                which = Integer.parseInt(shard);
            } catch (NumberFormatException e) {
                throw ApiException.badField("shard", "'" + shard + "' is not a shard number");
            }
            if (which < 0 || which >= report.shardCount()) {
                throw ApiException.badField("shard", which + " is outside 0.." + (report.shardCount() - 1));
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("redisTime", report.redisNow());
        out.put("shard", which);
        out.put("buckets", report.histogram(which));
        return out;
    }
}
