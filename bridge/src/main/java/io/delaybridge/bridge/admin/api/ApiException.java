package io.delaybridge.bridge.admin.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/** An API error with a JSON body {@code {"code":..,"message":..}} plus the field or id it is about. */
public final class ApiException extends WebApplicationException {

    private ApiException(int status, String message, String key, String value) {
        super(
                message,
                Response.status(status)
                        .type(MediaType.APPLICATION_JSON_TYPE)
                        .entity(body(status, message, key, value))
                        .build());
    }

    private static Map<String, Object> body(int status, String message, String key, String value) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", status);
        if (key != null) {
            body.put(key, value);
        }
        body.put("message", message);
        return body;
    }

    /** 400 naming the bad field. */
    public static ApiException badField(String field, String message) {
        return new ApiException(400, field + ": " + message, "field", field);
    }

    /** 404 naming the id. */
    public static ApiException notFound(String id) {
        return new ApiException(404, "no pending or in-flight message with id '" + id + "'", "id", id);
    }

    public static ApiException status(int status, String message) {
        return new ApiException(status, message, null, null);
    }
}
