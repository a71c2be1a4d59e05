package io.delaybridge.bridge.store;

/**
 * Permanent: the store refuses to run with this Redis or these settings (e.g. a {@code maxmemory-policy} that evicts
 * keys, a wrong password, a Redis too old). The message names the setting, its value and the fix. Retrying does not
 * help; fix the setting and restart.
 */
public class StoreConfigurationException extends StoreException {
    public StoreConfigurationException(String message) {
        super(message);
    }

    public StoreConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
