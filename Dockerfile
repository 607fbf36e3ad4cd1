# One image for every service; the Helm chart picks the module each Deployment runs.
FROM python:3.11-slim
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY libs ./libs
COPY services ./services
COPY agent ./agent
RUN pip install --no-cache-dir --no-deps libs/printcloud-core services/* agent
USER 65534
