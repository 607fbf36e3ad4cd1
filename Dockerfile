# One image for every service; the Helm chart picks the module each Deployment runs
# (`python -m printcloud.<service>`). Build from the repository's root, tagged with the release's
# version (the VERSION file, which every package and the chart carry too):
#   docker build --build-arg PRINTCLOUD_VERSION="$(cat VERSION)" -t <registry>/printcloud/printcloud:"$(cat VERSION)" .
# The base is pinned to an exact release; pin it by digest too where your registry policy asks.
ARG PYTHON_IMAGE=python:3.11.7-slim-bookworm
# Must be the VERSION file's text: the build stops otherwise, so the label cannot disagree with
# the version the packages inside report.
ARG PRINTCLOUD_VERSION=""

# --- build: the runtime requirements in a virtualenv, and the project's packages as wheels ---
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
ARG PRINTCLOUD_VERSION
COPY VERSION requirements.txt requirements-build.txt ./
RUN test "$PRINTCLOUD_VERSION" = "$(cat VERSION)" \
    || { echo "build with --build-arg PRINTCLOUD_VERSION=$(cat VERSION) (the VERSION file)" >&2; exit 1; }
RUN python -m venv /opt/printcloud \
    && /opt/printcloud/bin/pip install --require-virtualenv -r requirements.txt \
    && pip install -r requirements-build.txt
COPY libs/printcloud-contracts ./libs/printcloud-contracts
COPY libs/printcloud-core ./libs/printcloud-core
COPY libs/printcloud-protocol ./libs/printcloud-protocol
COPY services ./services
COPY agent ./agent
# Paths start with ./ so pip never mistakes a folder for a package name on PyPI.
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /wheels \
        ./libs/printcloud-contracts ./libs/printcloud-core ./libs/printcloud-protocol ./services/api-gateway ./services/agent-gateway \
        ./services/jobs ./services/devices ./services/webhooks ./services/dispatcher ./services/virtual-fleet ./agent \
    && /opt/printcloud/bin/pip install --no-deps /wheels/*.whl

# --- runtime: Python, the virtualenv and a non-root user; no compiler, tests or dev stack ---
FROM ${PYTHON_IMAGE} AS runtime
ARG PRINTCLOUD_VERSION
LABEL org.opencontainers.image.title="PrintCloud" \
      org.opencontainers.image.version="${PRINTCLOUD_VERSION}"
# The chart's securityContext runs as this user and group (values.yaml, runAsUser/runAsGroup).
RUN groupadd --system --gid 10001 printcloud \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin printcloud
COPY --from=build /opt/printcloud /opt/printcloud
# The root filesystem is read-only in Kubernetes: no bytecode written next to the sources.
ENV PATH=/opt/printcloud/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
WORKDIR /tmp
USER 10001:10001
# api-gateway 8080, agent-gateway 8081, gRPC 50051-50053, ops (metrics, probes) 9100.
EXPOSE 8080 8081 50051 50052 50053 9100
CMD ["python", "-m", "printcloud.api_gateway"]
