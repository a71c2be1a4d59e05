#!/bin/sh
# java with the broker's jars; tools log WARN to stderr, the broker INFO to stdout.
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} ${KAFKA_OPTS} -cp '/opt/kafka/libs/*' \
    -Dlog4j2.configurationFile="${KAFKA_LOG4J_CONFIG:-/opt/kafka/config/tools-log4j2.properties}" "$@"
