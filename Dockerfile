# qmlite: a drop-in for IBM's MQ developer container in CI (docs/rest.md "Container").  Queue manager
# QM1, MQ on 1414, the mqweb-shaped REST API on 9443 (plain HTTP unless QMLITE_TLS_CERT/KEY are given),
# the DEV.* objects, MQ_* variables and /run/secrets passwords.  Multi-arch: the base image is a
# multi-arch Python slim image and nothing here depends on the CPU (pure-Python wheels only), so
#   docker buildx build --platform linux/amd64,linux/arm64 -t qmlite .
# builds both.
FROM python:3.11-slim

WORKDIR /opt/qmlite
COPY pyproject.toml setup.py README.md LICENSE ./
COPY qmlite/ qmlite/
COPY pcf/ pcf/
COPY keys/ keys/
COPY registry/ registry/
COPY server/ server/
COPY client/ client/
COPY pipeline/ pipeline/
# IBM's control commands (runmqsc, dmpmqcfg, dspmq ...) are console scripts of the wheel, on PATH; IBM's
# image also has them at /opt/mqm/bin, which scripts call by that path (docs/control-commands.md).
RUN pip install --no-cache-dir . \
    && useradd --system --uid 1001 --home-dir /var/lib/qmlite qmlite \
    && mkdir -p /var/lib/qmlite /etc/mqm /opt/mqm/bin && chown qmlite /var/lib/qmlite \
    && for c in runmqsc dspmq dspmqver setmqaut dspmqaut dmpmqaut dmpmqcfg crtmqm strmqm endmqm dltmqm; do \
           ln -s "$(command -v "$c")" "/opt/mqm/bin/$c"; done
# IBM's sample programs where IBM's image has them, /opt/mqm/samp/bin (amqsput, amqsputc, ...: links to the
# console scripts pip put in /usr/local/bin, where the container's chkmqready, chkmqhealthy and
# chkmqstarted are too, as in IBM's image; docs/samples.md).
RUN mkdir -p /opt/mqm/samp/bin \
    && for s in amqsput amqsget amqsgbr amqsbcg amqspub amqssub amqsreq amqsinq amqsset; do \
         ln -s /usr/local/bin/$s /opt/mqm/samp/bin/$s && ln -s /usr/local/bin/${s}c /opt/mqm/samp/bin/${s}c; \
       done
# The sources stay behind: in /opt/qmlite, `python -m qmlite ...` or `python -c "import qmlite..."` (a
# `docker exec`) would import the copied qmlite/ folder, not the installed package (decision PK5).
WORKDIR /var/lib/qmlite

# IBM's names; LICENSE=accept is accepted and ignored (qmlite is Apache-2.0).  /etc/mqm holds start-up
# *.mqsc files, run in name order after the default objects, as IBM's image runs them.
ENV MQ_QMGR_NAME=QM1 \
    QMLITE_DATA_DIR=/var/lib/qmlite \
    PYTHONUNBUFFERED=1
USER qmlite
VOLUME ["/var/lib/qmlite"]
# 1883: MQTT, the developer objects' telemetry channel DEV.MQTT (docs/mqtt.md), which IBM's image lacks.
EXPOSE 1414 9443 1883
# IBM's liveness check: the queue manager on 127.0.0.1:1414 answers the MQ protocol (chkmq.py)
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 \
    CMD ["chkmqhealthy"]
ENTRYPOINT ["qmlite", "serve", "--host", "0.0.0.0", "--port", "1414", "--http-port", "9443", "--mqtt-port", "1883", "--data-dir", "/var/lib/qmlite", "--mqsc-dir", "/etc/mqm"]
