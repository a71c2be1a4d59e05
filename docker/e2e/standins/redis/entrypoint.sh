#!/bin/sh
# The official image compiles protected mode off; Debian's binary has it on, which refuses other containers.
if [ "$1" = redis-server ]; then
    shift
    set -- redis-server --protected-mode no "$@"
fi
exec "$@"
