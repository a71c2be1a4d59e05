package io.delaybridge.bridge.admin.api;

import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreUnavailableException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Store failures as JSON: 503 when Redis is unavailable (retry later), 500 otherwise; never a stack trace. */
public final class StoreExceptionMapper implements ExceptionMapper<StoreException> {

    private static final Logger LOG = LoggerFactory.getLogger(StoreExceptionMapper.class);

    @Override
    public Response toResponse(StoreException e) {
        int status = e instanceof StoreUnavailableException ? 503 : 500;
        LOG.warn("API call failed in the store: {}", e.getMessage());
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(Map.of("code", status, "message", e.getMessage()))
                .build();
    }
}
