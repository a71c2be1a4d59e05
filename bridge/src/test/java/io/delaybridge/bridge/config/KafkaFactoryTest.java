package io.delaybridge.bridge.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The clients' settings the bridge chooses, and that an operator's own properties override them. */
class KafkaFactoryTest {

    @Test
    void deliveriesCompressWithSnappy() {
        KafkaFactory factory = new KafkaFactory();
        assertEquals("snappy", factory.producerProperties(1 << 20).get(ProducerConfig.COMPRESSION_TYPE_CONFIG));
        assertEquals("snappy", factory.producerCompression(), "the codec loaded ahead at start-up");
        assertEquals("2000", factory.consumerProperties().get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
    }

    @Test
    void aStopDoesNotWaitHalfASecondForTheLastFetchSession() {
        // the consumer's close waits for its fetch session to close, which the broker holds for fetch.max.wait.ms
        KafkaFactory factory = new KafkaFactory();
        assertEquals("100", factory.consumerProperties().get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG));
        assertEquals("100", factory.offsetReaderProperties("thaw").get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG));
    }

    @Test
    void joinsAsAStaticMemberOfTheClassicProtocolWithAShortSession() {
        KafkaFactory factory = new KafkaFactory();
        factory.setInstanceId("bridge-a");
        Properties consumer = factory.consumerProperties();
        assertEquals("bridge-a", consumer.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals("classic", consumer.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG));
        assertEquals("8000", consumer.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals("1000", consumer.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));

        factory.setInstanceId("");
        assertFalse(factory.resolvedInstanceId().isBlank(), "the host name stands in for an empty id");
        assertEquals(
                factory.resolvedInstanceId(),
                factory.consumerProperties().get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }

    @Test
    void theConsumerProtocolGetsNoneOfTheSettingsItRefuses() {
        KafkaFactory factory = new KafkaFactory();
        factory.setConsumer(Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"));
        Properties consumer = factory.consumerProperties();
        assertEquals("consumer", consumer.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG));
        assertNull(consumer.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertNull(consumer.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        assertNull(consumer.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG));
    }

    @Test
    void anOperatorsPropertiesWin() {
        KafkaFactory factory = new KafkaFactory();
        factory.setConsumer(
                Map.of(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1", ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500"));
        factory.setProducer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd"));
        Properties consumer = factory.consumerProperties();
        assertEquals("1", consumer.get(ConsumerConfig.FETCH_MIN_BYTES_CONFIG));
        assertEquals("500", consumer.get(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG));
        assertEquals("zstd", factory.producerProperties(1 << 20).get(ProducerConfig.COMPRESSION_TYPE_CONFIG));
        assertEquals("zstd", factory.producerCompression());
    }

    @Test
    void theOffsetReaderIsNoMemberAndTakesTheCommonSettings() {
        KafkaFactory factory = new KafkaFactory();
        factory.setInstanceId("bridge-a");
        factory.setCommon(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN"));
        factory.setConsumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted"));
        Properties reader = factory.offsetReaderProperties("api");
        assertEquals("SASL_SSL", reader.get("security.protocol"), "TLS and SASL apply to the thaw's reads too");
        assertEquals("PLAIN", reader.get("sasl.mechanism"));
        assertNull(reader.get(ConsumerConfig.GROUP_ID_CONFIG), "assign and seek: no group");
        assertNull(reader.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), "never fences the intake's member");
        assertNull(reader.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG));
        assertEquals("false", reader.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
        assertEquals("none", reader.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "a deleted offset is reported");
        assertEquals(
                "read_committed",
                reader.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG),
                "an aborted transaction's record is never thawed nor shown");
        assertEquals(factory.getGroupId() + "-api", reader.get(ConsumerConfig.CLIENT_ID_CONFIG), "one id a reader");
    }

    @Test
    void transactionalProducersTakeTheDeliveryProducersSettingsTheirIdAndTimeout() {
        KafkaFactory kafka = new KafkaFactory();
        kafka.setProducer(Map.of(ProducerConfig.LINGER_MS_CONFIG, "5"));
        Properties transactional = new DeliveryFactory().transactionalProperties(kafka, 1 << 20, 7_000, "g-intake-a-b");
        assertEquals("g-intake-a-b", transactional.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG));
        assertEquals("g-intake-a-b", transactional.get(ProducerConfig.CLIENT_ID_CONFIG));
        assertEquals("7000", transactional.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG));
        assertEquals("all", transactional.get(ProducerConfig.ACKS_CONFIG));
        assertEquals("5", transactional.get(ProducerConfig.LINGER_MS_CONFIG), "kafka.producer applies to them");
    }
}
