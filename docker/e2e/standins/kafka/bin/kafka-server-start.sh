#!/bin/sh
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx512m -Xms512m}" KAFKA_LOG4J_CONFIG=/opt/kafka/config/log4j2.properties \
    exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
