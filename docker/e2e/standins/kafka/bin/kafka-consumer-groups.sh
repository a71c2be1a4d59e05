#!/bin/sh
exec /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.tools.consumer.group.ConsumerGroupCommand "$@"
