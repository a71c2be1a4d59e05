package io.delaybridge.bridge.rules;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delaybridge.schemas.ContractViolation;
import io.delaybridge.schemas.Envelope;
import io.delaybridge.schemas.ErrorCode;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * One source record as the rules see it: key, value, headers and where it came from. The value is parsed as JSON
 * at most once, when the first rule asks for a field, and shared by every rule on the same source.
 */
final class RuleInput {

    private static final ObjectMapper JSON = new ObjectMapper();

    final String topic;
    final int partition;
    final long offset;
    final long timestamp;
    final byte[] key;
    final byte[] value;
    final Headers headers;
    private JsonNode json;
    private ContractViolation notJson;

    RuleInput(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value, Headers headers) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.headers = headers;
    }

    /** {@code topic/partition/offset}, the form of {@code delay-origin}. */
    String origin() {
        return Envelope.origin(topic, partition, offset);
    }

    /** The key as UTF-8 text; a record without a key cannot fill {@code {key}}. */
    String keyText(String rule, String use) throws ContractViolation {
        if (key == null) {
            throw new ContractViolation(
                    ErrorCode.MISSING_KEY,
                    "rule " + rule + ": the record has no key, and " + use
                            + " uses {key}; give the source records a key, or use another placeholder");
        }
        return new String(key, StandardCharsets.UTF_8);
    }

    /** The last value of a header as UTF-8 text, or null if the record does not carry it. */
    String header(String name) {
        Header h = headers == null ? null : headers.lastHeader(name);
        return h == null ? null : h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    /**
     * A field of the JSON value, by a dotted path ({@code payment.timeout}); null if the value is a JSON object
     * without it (or with {@code null} there).
     *
     * @throws ContractViolation {@link ErrorCode#INVALID_VALUE} if the value is not a JSON object
     */
    JsonNode field(String rule, String path) throws ContractViolation {
        JsonNode node = json(rule, path);
        for (String part : path.split("\\.", -1)) {
            node = node.get(part);
            if (node == null || node.isNull()) {
                return null;
            }
        }
        return node;
    }

    private JsonNode json(String rule, String path) throws ContractViolation {
        if (json == null && notJson == null) {
            try {
                JsonNode parsed = value == null ? null : JSON.readTree(value);
                if (parsed != null && parsed.isObject()) {
                    json = parsed;
                } else {
                    notJson = new ContractViolation(
                            ErrorCode.INVALID_VALUE,
                            "the value is "
                                    + (value == null ? "null" : "JSON but not an object") + ", so there is no field "
                                    + ContractViolation.quote(path));
                }
            } catch (JsonProcessingException e) {
                notJson = new ContractViolation(
                        ErrorCode.INVALID_VALUE,
                        "the value is not JSON (" + e.getOriginalMessage() + "), so there is no field "
                                + ContractViolation.quote(path));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e); // reading a byte array does no I/O
            }
        }
        if (notJson != null) {
            throw new ContractViolation(
                    notJson.code(),
                    "rule " + rule + ": " + notJson.getMessage()
                            + "; produce JSON objects to the source, or take the delay from a header or a fixed delay");
        }
        return json;
    }
}
