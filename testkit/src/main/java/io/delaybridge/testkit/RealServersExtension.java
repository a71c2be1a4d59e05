package io.delaybridge.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves a {@link TestServers} parameter with the JVM-wide {@link RealServers}, in test methods, lifecycle
 * methods and constructors.
 *
 * <pre>{@code
 * @ExtendWith(RealServersExtension.class)
 * class DeliveryIT {
 *     @Test
 *     void delivers(TestServers servers) {
 *         String topic = servers.unique("orders");
 *         // ... servers.kafkaBootstrap(), servers.redisUri()
 *     }
 * }
 * }</pre>
 */
public final class RealServersExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestServers.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return new TestServers(RealServers.kafkaBootstrap(), RealServers.redisUri());
    }
}
