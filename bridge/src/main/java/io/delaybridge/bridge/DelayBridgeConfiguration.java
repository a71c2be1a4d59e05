package io.delaybridge.bridge;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delaybridge.bridge.config.ApiFactory;
import io.delaybridge.bridge.config.DeliveryFactory;
import io.delaybridge.bridge.config.IntakeFactory;
import io.delaybridge.bridge.config.KafkaFactory;
import io.delaybridge.bridge.config.PumpFactory;
import io.delaybridge.bridge.config.RedisFactory;
import io.delaybridge.bridge.config.RuleEngineFactory;
import io.delaybridge.bridge.config.RulesFactory;
import io.dropwizard.core.Configuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/**
 * The bridge's configuration: {@code kafka}, {@code redis}, {@code intake}, {@code pump}, {@code delivery},
 * {@code api}, {@code rules},
 * {@code ruleEngine}, and Dropwizard's own.
 */
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
    private DeliveryFactory delivery = new DeliveryFactory();

    @Valid
    @NotNull
    private ApiFactory api = new ApiFactory();

    @Valid
    @NotNull
    private RulesFactory rules = new RulesFactory();

    @Valid
    @NotNull
    private RuleEngineFactory ruleEngine = new RuleEngineFactory();

    /** Set by {@code delay-bridge rules}: wire the delay rules alone. Not a setting. */
    @JsonIgnore
    private boolean rulesOnly;

    @JsonProperty
    public RulesFactory getRules() {
        return rules;
    }

    @JsonProperty
    public void setRules(RulesFactory rules) {
        this.rules = rules;
    }

    @JsonProperty
    public RuleEngineFactory getRuleEngine() {
        return ruleEngine;
    }

    @JsonProperty
    public void setRuleEngine(RuleEngineFactory ruleEngine) {
        this.ruleEngine = ruleEngine;
    }

    @JsonIgnore
    public boolean isRulesOnly() {
        return rulesOnly;
    }

    void rulesOnly(boolean only) {
        this.rulesOnly = only;
    }

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

    @JsonProperty
    public DeliveryFactory getDelivery() {
        return delivery;
    }

    @JsonProperty
    public void setDelivery(DeliveryFactory delivery) {
        this.delivery = delivery;
    }
}
