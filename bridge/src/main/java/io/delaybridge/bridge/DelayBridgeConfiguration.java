package io.delaybridge.bridge;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.config.ApiFactory;
import io.delaybridge.bridge.config.IntakeFactory;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.config.PumpFactory;
import io.delaybridge.bridge.config.RedisFactory;
import io.dropwizard.core.Configuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/** The bridge's configuration: {@code kafka}, {@code redis}, {@code intake}, {@code pump}, {@code api}, and Dropwizard's own. */
public class DelayBridgeConfiguration extends Configuration {

    @Valid
    @NotNull
    private KafkaFactory kafka = new KafkaFactory();

    @Valid
    @NotNull
    private RedisFactory redis = new RedisFactory();

    @Valid
    @NotNull
    private IntakeFactory intake = new IntakeFactory();

    @Valid
    @NotNull
    private PumpFactory pump = new PumpFactory();

    @Valid
    @NotNull
    private ApiFactory api = new ApiFactory();

    @JsonProperty
    public ApiFactory getApi() {
        return api;
    }

    @JsonProperty
    public void setApi(ApiFactory api) {
        this.api = api;
    }

    @JsonProperty
    public KafkaFactory getKafka() {
        return kafka;
    }

    @JsonProperty
    public void setKafka(KafkaFactory kafka) {
        this.kafka = kafka;
    }

    @JsonProperty
    public RedisFactory getRedis() {
        return redis;
    }

    @JsonProperty
    public void setRedis(RedisFactory redis) {
        this.redis = redis;
    }

    @JsonProperty
    public IntakeFactory getIntake() {
        return intake;
    }

    @JsonProperty
    public void setIntake(IntakeFactory intake) {
        this.intake = intake;
    }

    @JsonProperty
    public PumpFactory getPump() {
        return pump;
    }

    @JsonProperty
    public void setPump(PumpFactory pump) {
        this.pump = pump;
    }
}
