package io.delaybridge.bridge.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.admin.api.ApiSettings;
import io.delaybridge.bridge.admin.api.Credentials;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Who may change things through the message API and the admin tasks, how much one request may do, and the thresholds
 * of the operational health checks.
 *
 * <p>There are no default credentials. Without any configured, every mutating route (API {@code POST}/{@code DELETE},
 * admin tasks) answers 403 with a message naming these settings, and changes nothing.
 *
 * <table>
 *   <caption>Settings under {@code api:}</caption>
 *   <tr><th>name</th><th>default</th><th>description</th></tr>
 *   <tr><td>token</td><td>(none)</td><td>one bearer token, principal {@code token}; convenient with
 *       {@code ${DELAY_API_TOKEN:-}}. Empty means none. At least 16 characters</td></tr>
 *   <tr><td>tokens</td><td>{}</td><td>principal name to bearer token ({@code Authorization: Bearer <token>}); at
 *       least 16 characters each</td></tr>
 *   <tr><td>users</td><td>{}</td><td>user name to password for basic auth; at least 12 characters each</td></tr>
 *   <tr><td>authenticateReads</td><td>false</td><td>also require credentials for read-only routes (GET), on both
 *       ports</td></tr>
 *   <tr><td>maxBodySize</td><td>64 KiB</td><td>larger request bodies are refused with 413</td></tr>
 *   <tr><td>maxBulkCancel</td><td>10000</td><td>the highest {@code limit} of one bulk cancel</td></tr>
 *   <tr><td>maxBulkScan</td><td>1000000</td><td>pending messages one bulk cancel examines at most</td></tr>
 *   <tr><td>maxReplay</td><td>100000</td><td>the highest {@code limit} of one deadletter replay</td></tr>
 *   <tr><td>maxPumpLag</td><td>30s</td><td>health: a message overdue longer than this makes {@code pump-lag}
 *       unhealthy</td></tr>
 *   <tr><td>maxClockSkew</td><td>2s</td><td>health: this host's clock further than this from Redis' TIME makes
 *       {@code clock-skew} unhealthy</td></tr>
 *   <tr><td>statusPage</td><td>true</td><td>serve the status page at {@code /status/} on the application
 *       port</td></tr>
 * </table>
 */
public class ApiFactory {

    private String token = "";

    @NotNull
    private Map<String, String> tokens = new LinkedHashMap<>();

    @NotNull
    private Map<String, String> users = new LinkedHashMap<>();

    private boolean authenticateReads = false;

    @NotNull
    @MinDataSize(256)
    @MaxDataSize(value = 16, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES)
    private DataSize maxBodySize = DataSize.kibibytes(64);

    @Min(1)
    @Max(1_000_000)
    private int maxBulkCancel = 10_000;

    @Min(1)
    @Max(100_000_000)
    private int maxBulkScan = 1_000_000;

    @Min(1)
    @Max(10_000_000)
    private int maxReplay = 100_000;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration maxPumpLag = Duration.seconds(30);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    private Duration maxClockSkew = Duration.seconds(2);

    private boolean statusPage = true;

    @ValidationMethod(message = "holds a token shorter than 16 characters: api.token and every value of api.tokens"
            + " must be at least 16 characters (e.g. openssl rand -hex 24)")
    public boolean isTokensLongEnough() {
        return (token == null || token.isEmpty() || token.length() >= 16)
                && tokens.values().stream().allMatch(t -> t != null && t.length() >= 16);
    }

    @ValidationMethod(message = "holds a password shorter than 12 characters: every value of api.users must be at"
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
