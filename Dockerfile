# qmlite: a queue manager stand-in that starts in under a second.  Mirrors the IBM MQ developer
# container's defaults (QM1 on port 1414, DEV.* objects, MQ_* environment variables).
FROM python:3.11-slim

WORKDIR /opt/qmlite
COPY pyproject.toml README.md ./
COPY qmlite/ qmlite/
COPY pcf/ pcf/
COPY registry/ registry/
COPY server/ server/
COPY client/ client/
COPY pipeline/ pipeline/
RUN pip install --no-cache-dir . && useradd --system --uid 1001 --home-dir /var/lib/qmlite qmlite \
    && mkdir -p /var/lib/qmlite && chown qmlite /var/lib/qmlite

ENV MQ_QMGR_NAME=QM1
USER qmlite
VOLUME ["/var/lib/qmlite"]
EXPOSE 1414
ENTRYPOINT ["qmlite", "serve", "--host", "0.0.0.0", "--port", "1414", "--data-dir", "/var/lib/qmlite"]
