#!/bin/sh
# The public image's entrypoint name; here it starts the stand-in (see the Dockerfile).
exec python3 /usr/share/grafana/standin.py "$@"
