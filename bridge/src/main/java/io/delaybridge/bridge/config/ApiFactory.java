package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.admin.api.Credentials;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who may change things through the message API and the admin tasks, how much one request may do, and the thresholds
 * of the operational health checks.
 *
 * <p>There are no default credentials. Without any configured, every mutating route (API {@code POST}/{@code DELETE},
 * admin tasks) answers 403 with a message naming these settings, and changes nothing.
 *
 * <p>Settings under {@code api:} (docs/configuration.md).
 */
@SettingsCheck
public class ApiFactory {

    @Setting(
            value = "One bearer token, principal `token`; empty means none. At least 16 characters.",
            defaultMeans = "none")
    private String token = "";

    @NotNull
    @Setting("Principal name to bearer token (`Authorization: Bearer <token>`); at least 16 characters each.")
    private Map<String, String> tokens = new LinkedHashMap<>();

    @NotNull
    @Setting("User name to password for basic auth; at least 12 characters each.")
    private Map<String, String> users = new LinkedHashMap<>();

    @Setting("Also require credentials for read-only routes (`GET`), on both ports.")
    private boolean authenticateReads = false;

    @NotNull
    @Setting(value = "Larger request bodies are refused with 413.", min = "256B", max = "16MiB")
    private DataSize maxBodySize = DataSize.kibibytes(64);

    @Setting(value = "The highest `limit` of one bulk cancel.", min = "1", max = "1000000")
    private int maxBulkCancel = 10_000;

    @Setting(value = "Pending messages one bulk cancel examines at most.", min = "1", max = "100000000")
    private int maxBulkScan = 1_000_000;

    @Setting(value = "The highest `limit` of one deadletter replay.", min = "1", max = "10000000")
    private int maxReplay = 100_000;

    @NotNull
    @Setting(value = "Health: a message overdue longer than this makes `pump-lag` unhealthy.", min = "1s")
    private Duration maxPumpLag = Duration.seconds(30);

    @NotNull
    @Setting(
            value = "Health: this host's clock further than this from Redis' `TIME` makes `clock-skew` unhealthy.",
            min = "1ms")
    private Duration maxClockSkew = Duration.seconds(2);

    @Setting("Serve the status page at `/status/` on the application port.")
    private boolean statusPage = true;

    @ValidationMethod(
            message = "holds a token shorter than 16 characters: api.token and every value of api.tokens"
                    + " must be at least 16 characters (e.g. openssl rand -hex 24)")
    public boolean isTokensLongEnough() {
        return (token == null || token.isEmpty() || token.length() >= 16)
                && tokens.values().stream().allMatch(t -> t != null && t.length() >= 16);
    }

    @ValidationMethod(
            message = "holds a password shorter than 12 characters: every value of api.users must be at"
                    + " least 12 characters")
    public boolean isPasswordsLongEnough() {
        return users.values().stream().allMatch(p -> p != null && p.length() >= 12);
    }

    @ValidationMethod(message = "holds a user name with ':' or an empty one: api.users names are basic-auth user ids")
    public boolean isUserNamesUsable() {
        return users.keySet().stream().allMatch(u -> !u.isEmpty() && u.indexOf(':') < 0);
    }

    public ApiSettings build() {
        Map<String, String> allTokens = new LinkedHashMap<>(tokens);
        if (token != null && !token.isEmpty()) {
            allTokens.put("token", token);
        }
        return new ApiSettings(
                new Credentials(allTokens, users),
                authenticateReads,
                maxBodySize.toBytes(),
                maxBulkCancel,
                maxBulkScan,
                maxReplay,
                maxPumpLag.toMilliseconds(),
                maxClockSkew.toMilliseconds(),
                statusPage);
    }

    @JsonProperty
    public String getToken() {
        return token;
    }

    @JsonProperty
    public void setToken(String token) {
        this.token = token;
    }

    @JsonProperty
    public Map<String, String> getTokens() {
        return tokens;
    }

    @JsonProperty
    public void setTokens(Map<String, String> tokens) {
        this.tokens = tokens;
    }

    @JsonProperty
    public Map<String, String> getUsers() {
        return users;
    }

    @JsonProperty
    public void setUsers(Map<String, String> users) {
        this.users = users;
    }

    @JsonProperty
    public boolean isAuthenticateReads() {
        return authenticateReads;
    }

    @JsonProperty
    public void setAuthenticateReads(boolean authenticateReads) {
        this.authenticateReads = authenticateReads;
    }

    @JsonProperty
    public DataSize getMaxBodySize() {
        return maxBodySize;
    }

    @JsonProperty
    public void setMaxBodySize(DataSize maxBodySize) {
        this.maxBodySize = maxBodySize;
    }

    @JsonProperty
    public int getMaxBulkCancel() {
        return maxBulkCancel;
    }

    @JsonProperty
    public void setMaxBulkCancel(int maxBulkCancel) {
        this.maxBulkCancel = maxBulkCancel;
    }

    @JsonProperty
    public int getMaxBulkScan() {
        return maxBulkScan;
    }

    @JsonProperty
    public void setMaxBulkScan(int maxBulkScan) {
        this.maxBulkScan = maxBulkScan;
    }

    @JsonProperty
    public int getMaxReplay() {
        return maxReplay;
    }

    @JsonProperty
    public void setMaxReplay(int maxReplay) {
        this.maxReplay = maxReplay;
    }

    @JsonProperty
    public Duration getMaxPumpLag() {
        return maxPumpLag;
    }

    @JsonProperty
    public void setMaxPumpLag(Duration maxPumpLag) {
        this.maxPumpLag = maxPumpLag;
    }

    @JsonProperty
    public Duration getMaxClockSkew() {
        return maxClockSkew;
    }

    @JsonProperty
    public void setMaxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
    }

    @JsonProperty
    public boolean isStatusPage() {
        return statusPage;
    }

    @JsonProperty
    public void setStatusPage(boolean statusPage) {
        this.statusPage = statusPage;
    }
}
