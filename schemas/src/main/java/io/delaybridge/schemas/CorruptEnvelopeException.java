package io.delaybridge.schemas;

/**
 * Stored bytes are not an envelope this version can read: truncated, trailing garbage, malformed UTF-8,
 * an impossible length, or an unknown format version. Unchecked because it means the store or a foreign writer
 * is broken, not that the caller did something wrong; the bridge deadletters the message with
 * {@link ErrorCode#CORRUPT_ENVELOPE} rather than retrying, since decoding the same bytes again cannot succeed.
 */
public final class CorruptEnvelopeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and at which byte offset */
    public CorruptEnvelopeException(String message) {
        super(message);
    }
}
