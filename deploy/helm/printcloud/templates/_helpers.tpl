{{/*
The release's base name, at most 40 characters so that "<fullname>-<component>" fits in 63. A
longer name is cut and given a hash of the whole, so two long releases never share names.
*/}}
{{- define "printcloud.fullname" -}}
{{- $full := "" -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $full = ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) -}}
{{- end -}}
{{- if gt (len $full) 40 -}}
{{- printf "%s-%s" ($full | trunc 33 | trimSuffix "-") ($full | sha256sum | trunc 6) -}}
{{- else -}}
{{- $full -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<component>" within 63 characters: (dict "root" $ "component" "jobs") */}}
{{- define "printcloud.componentName" -}}
{{- $base := include "printcloud.fullname" .root | trunc (int (sub 62 (len .component))) | trimSuffix "-" -}}
{{- printf "%s-%s" $base .component -}}
{{- end -}}

{{- define "printcloud.labels" -}}
app.kubernetes.io/name: {{ default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/*
The labels of one component's pods: (dict "root" $ "component" "jobs" "extra" podLabels). The
chart's own labels win over podLabels (the schema refuses the selector ones there anyway).
*/}}
{{- define "printcloud.podLabels" -}}
{{- $labels := mergeOverwrite (deepCopy (.extra | default dict)) (include "printcloud.labels" .root | fromYaml) (dict "app.kubernetes.io/component" .component) -}}
{{- toYaml $labels -}}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "jobs") */}}
{{- define "printcloud.selectorLabels" -}}
app.kubernetes.io/name: {{ default .root.Chart.Name .root.Values.nameOverride | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .root.Release.Name | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "printcloud.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{- define "printcloud.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ default (include "printcloud.fullname" .) .Values.serviceAccount.name }}
{{- else -}}
{{ default "default" .Values.serviceAccount.name }}
{{- end -}}
{{- end -}}

{{/*
What each process reads and whom it calls: the chart hands a container only the settings its
service's Settings class has (tests/deploy checks it against the classes).
*/}}
{{- define "printcloud.wiring" -}}
api-gateway: {module: printcloud.api_gateway, database: true, kafka: true, calls: [jobs, devices, webhooks], internalAuth: true, publicUrl: true, redis: true, smtp: true}
agent-gateway: {module: printcloud.agent_gateway, kafka: true, calls: [devices, jobs], internalAuth: true, fileTokens: true}
jobs: {module: printcloud.jobs, database: true, kafka: true, calls: [devices], internalAuth: true, egress: true, jobEventsTopic: true}
devices: {module: printcloud.devices, database: true, kafka: true, internalAuth: true}
webhooks: {module: printcloud.webhooks, database: true, kafka: true, internalAuth: true, egress: true, smtp: true}
dispatcher: {module: printcloud.dispatcher, calls: [jobs], internalAuth: true}
virtual-fleet: {module: printcloud.virtual_fleet, calls: [devices], internalAuth: true, agentGateway: true}
{{- end -}}

{{- define "printcloud.postgresSecret" -}}
{{- required "postgres.existingSecret is required: name a Secret whose key `url` holds postgresql://user:password@host:5432/printcloud?sslmode=verify-full&sslrootcert=/etc/printcloud/tls/postgresql/ca.crt (the CA from postgres.tls.existingSecret)" .Values.postgres.existingSecret -}}
{{- end -}}

{{- define "printcloud.fileTokenSecret" -}}
{{- required "agentFileTokenSecret.existingSecret is required: name a Secret whose key `secret` holds a random key (e.g. openssl rand -hex 32) shared by the agent-gateway replicas" .Values.agentFileTokenSecret.existingSecret -}}
{{- end -}}

{{- define "printcloud.internalAuthSecret" -}}
{{- required "internalAuthSecret.existingSecret is required: name a Secret whose key `secret` holds a random key of 32 characters or more (e.g. openssl rand -base64 48) shared by every service that speaks gRPC" .Values.internalAuthSecret.existingSecret -}}
{{- end -}}

{{/* The Redis URL's Secret, required when several api-gateway replicas must share rate limits. */}}
{{- define "printcloud.redisSecret" -}}
{{- $gateway := index .Values.services "api-gateway" -}}
{{- if or (gt (int $gateway.replicas) 1) $gateway.autoscaling.enabled -}}
{{- required "redis.existingSecret is required when the api-gateway runs more than one replica or autoscales: name a Secret whose key `url` holds redis://[:password@]host:6379/0 or rediss://... (the replicas share their rate limits there), or run services.api-gateway.replicas=1 without autoscaling, whose limits are kept in the process" .Values.redis.existingSecret -}}
{{- else -}}
{{- .Values.redis.existingSecret -}}
{{- end -}}
{{- end -}}

{{/* The gRPC target of a service: every replica's address through its headless Service. */}}
{{- define "printcloud.grpcTarget" -}}
{{- $svc := index .root.Values.services .name -}}
dns:///{{ include "printcloud.componentName" (dict "root" .root "component" .name) }}.{{ .root.Release.Namespace }}.svc.{{ .root.Values.clusterDomain }}:{{ $svc.grpc }}
{{- end -}}

{{/* The environment of one service's container: (dict "root" $ "name" "jobs") */}}
{{- define "printcloud.env" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $svc := index $root.Values.services $name -}}
{{- $wiring := index (include "printcloud.wiring" $root | fromYaml) $name -}}
- name: PRINTCLOUD_SERVICE_NAME
  value: {{ $name | quote }}
- name: PRINTCLOUD_INSTANCE_ID
  valueFrom: {fieldRef: {fieldPath: metadata.name}}
- name: PRINTCLOUD_LOG_LEVEL
  value: {{ $root.Values.logLevel | quote }}
- name: PRINTCLOUD_OPS_HOST
  value: "0.0.0.0"
- name: PRINTCLOUD_OPS_PORT
  value: {{ $root.Values.opsPort | quote }}
{{- if $wiring.database }}
- name: PRINTCLOUD_DATABASE_URL
  valueFrom: {secretKeyRef: {name: {{ include "printcloud.postgresSecret" $root }}, key: {{ $root.Values.postgres.urlKey }}}}
{{- if $root.Values.migrations.job.enabled }}
- name: PRINTCLOUD_MIGRATE_ON_START
  value: "false"
{{- end }}
{{- end }}
{{- if $wiring.kafka }}
{{ include "printcloud.kafkaEnv" $root }}
{{- end }}
{{- range $wiring.calls }}
- name: PRINTCLOUD_{{ . | upper }}_GRPC_TARGET
  value: {{ include "printcloud.grpcTarget" (dict "root" $root "name" .) | quote }}
{{- end }}
{{- if $svc.grpc }}
- name: PRINTCLOUD_GRPC_LISTEN
  value: "0.0.0.0:{{ $svc.grpc }}"
{{- end }}
{{- if $svc.http }}
- name: PRINTCLOUD_HTTP_HOST
  value: "0.0.0.0"
- name: PRINTCLOUD_HTTP_PORT
  value: {{ $svc.http | quote }}
{{- end }}
{{- if $wiring.publicUrl }}
- name: PRINTCLOUD_PUBLIC_URL
  value: {{ $root.Values.publicUrl | quote }}
- name: PRINTCLOUD_AGENT_GATEWAY_PUBLIC_URL
  value: {{ $root.Values.agentGatewayPublicUrl | quote }}
{{- end }}
{{- if $wiring.agentGateway }}
- name: PRINTCLOUD_AGENT_GATEWAY_URL
  value: "http://{{ include "printcloud.componentName" (dict "root" $root "component" "agent-gateway") }}:{{ (index $root.Values.services "agent-gateway").http }}"
{{- end }}
{{- if $wiring.redis }}
{{- with include "printcloud.redisSecret" $root }}
- name: PRINTCLOUD_REDIS_URL
  valueFrom: {secretKeyRef: {name: {{ . }}, key: {{ $root.Values.redis.urlKey }}}}
{{- end }}
{{- end }}
{{- if $wiring.internalAuth }}
- name: PRINTCLOUD_INTERNAL_AUTH_SECRET
  valueFrom: {secretKeyRef: {name: {{ include "printcloud.internalAuthSecret" $root }}, key: {{ $root.Values.internalAuthSecret.key }}}}
{{- end }}
{{- if $wiring.fileTokens }}
- name: PRINTCLOUD_FILE_TOKEN_SECRET
  valueFrom: {secretKeyRef: {name: {{ include "printcloud.fileTokenSecret" $root }}, key: {{ $root.Values.agentFileTokenSecret.key }}}}
{{- end }}
{{- if $wiring.jobEventsTopic }}
- name: PRINTCLOUD_CREATE_JOBS_ON_JOB_EVENTS_TOPIC
  value: {{ $root.Values.kafka.createJobsOnJobEventsTopic | quote }}
{{- end }}
{{- if $wiring.egress }}
- name: PRINTCLOUD_EGRESS_ALLOWLIST
  value: {{ $root.Values.egressAllowlist | quote }}
{{- end }}
{{- if $wiring.smtp }}
- name: PRINTCLOUD_SMTP_HOST
  value: {{ $root.Values.smtp.host | quote }}
- name: PRINTCLOUD_SMTP_PORT
  value: {{ $root.Values.smtp.port | quote }}
- name: PRINTCLOUD_SMTP_SENDER
  value: {{ $root.Values.smtp.sender | quote }}
- name: PRINTCLOUD_SMTP_STARTTLS
  value: {{ $root.Values.smtp.starttls | quote }}
{{- with $root.Values.smtp.existingSecret }}
- name: PRINTCLOUD_SMTP_USERNAME
  valueFrom: {secretKeyRef: {name: {{ . }}, key: username}}
- name: PRINTCLOUD_SMTP_PASSWORD
  valueFrom: {secretKeyRef: {name: {{ . }}, key: password}}
{{- end }}
{{- end }}
{{- if $root.Values.otlp.enabled }}
{{ include "printcloud.otlpEnv" $root }}
{{- end }}
{{- range $variable, $value := $svc.env }}
- name: {{ $variable }}
  value: {{ $value | quote }}
{{- end }}
{{- with $root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "printcloud.kafkaEnv" -}}
{{- $kafka := .Values.kafka -}}
- name: PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS
  value: {{ $kafka.bootstrapServers | quote }}
- name: PRINTCLOUD_KAFKA_SECURITY_PROTOCOL
  value: {{ $kafka.securityProtocol | quote }}
- name: PRINTCLOUD_KAFKA_TOPIC_REPLICATION_FACTOR
  value: {{ $kafka.topicReplicationFactor | quote }}
{{- if hasPrefix "SASL_" $kafka.securityProtocol }}
- name: PRINTCLOUD_KAFKA_SASL_MECHANISM
  value: {{ required "kafka.sasl.mechanism is required with a SASL_* securityProtocol (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)" $kafka.sasl.mechanism | quote }}
- name: PRINTCLOUD_KAFKA_SASL_USERNAME
  valueFrom: {secretKeyRef: {name: {{ required "kafka.sasl.existingSecret is required with a SASL_* securityProtocol: a Secret holding the SASL username and password" $kafka.sasl.existingSecret }}, key: {{ $kafka.sasl.usernameKey }}}}
- name: PRINTCLOUD_KAFKA_SASL_PASSWORD
  valueFrom: {secretKeyRef: {name: {{ $kafka.sasl.existingSecret }}, key: {{ $kafka.sasl.passwordKey }}}}
{{- end }}
{{- with $kafka.tls }}
{{- if .existingSecret }}
- name: PRINTCLOUD_KAFKA_SSL_CAFILE
  value: {{ include "printcloud.tlsDir" "kafka" }}/ca.crt
{{- if .clientCertificate }}
- name: PRINTCLOUD_KAFKA_SSL_CERTFILE
  value: {{ include "printcloud.tlsDir" "kafka" }}/tls.crt
- name: PRINTCLOUD_KAFKA_SSL_KEYFILE
  value: {{ include "printcloud.tlsDir" "kafka" }}/tls.key
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* OpenTelemetry's standard variables, which the services' exporters read (core.telemetry.otlp). */}}
{{- define "printcloud.otlpEnv" -}}
{{- $otlp := .Values.otlp -}}
- name: PRINTCLOUD_OTEL_EXPORTER
  value: otlp
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ required "otlp.endpoint is required with otlp.enabled: the collector's address, e.g. http://otel-collector.observability:4318" $otlp.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $otlp.protocol | quote }}
{{- with $otlp.headers.existingSecret }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom: {secretKeyRef: {name: {{ . }}, key: {{ $otlp.headers.key }}}}
{{- end }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $otlp.sampler | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $otlp.samplerRatio | quote }}
{{- if $otlp.metrics }}
- name: OTEL_METRIC_EXPORT_INTERVAL
  value: {{ mul $otlp.metricExportIntervalSeconds 1000 | quote }}
{{- else }}
- name: OTEL_METRICS_EXPORTER
  value: none
{{- end }}
{{- $attributes := list (printf "k8s.namespace.name=%s" .Release.Namespace) }}
{{- range $name, $value := $otlp.resourceAttributes }}
{{- $attributes = append $attributes (printf "%s=%s" $name $value) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attributes | quote }}
{{- with $otlp.tls }}
{{- if .existingSecret }}
- name: OTEL_EXPORTER_OTLP_CERTIFICATE
  value: {{ include "printcloud.tlsDir" "otlp" }}/ca.crt
{{- if .clientCertificate }}
- name: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE
  value: {{ include "printcloud.tlsDir" "otlp" }}/tls.crt
- name: OTEL_EXPORTER_OTLP_CLIENT_KEY
  value: {{ include "printcloud.tlsDir" "otlp" }}/tls.key
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Where the TLS files of one connection are mounted: "postgresql", "redis", "kafka" or "otlp". */}}
{{- define "printcloud.tlsDir" -}}/etc/printcloud/tls/{{ . }}{{- end -}}

{{/*
The TLS Secrets one service's containers read, as a JSON list of connection names:
(dict "root" $ "name" "jobs"). Only what the service connects to, and only when a Secret is named.
*/}}
{{- define "printcloud.tlsUses" -}}
{{- $values := .root.Values -}}
{{- $wiring := index (include "printcloud.wiring" .root | fromYaml) .name -}}
{{- $uses := list -}}
{{- if and $wiring.database $values.postgres.tls.existingSecret }}{{ $uses = append $uses "postgresql" }}{{ end -}}
{{- if and $wiring.kafka $values.kafka.tls.existingSecret }}{{ $uses = append $uses "kafka" }}{{ end -}}
{{- if and $wiring.redis $values.redis.tls.existingSecret (include "printcloud.redisSecret" .root) }}{{ $uses = append $uses "redis" }}{{ end -}}
{{- if and $values.otlp.enabled $values.otlp.tls.existingSecret }}{{ $uses = append $uses "otlp" }}{{ end -}}
{{- toJson $uses -}}
{{- end -}}

{{/*
Volumes every pod gets: /tmp, the TLS Secrets of the connections in `uses`, and the operator's
extraVolumes. (dict "root" $ "uses" (list "kafka") "pod" podSettings)
*/}}
{{- define "printcloud.volumes" -}}
{{- $values := .root.Values -}}
{{- $tls := dict "postgresql" $values.postgres.tls "redis" $values.redis.tls "kafka" $values.kafka.tls "otlp" $values.otlp.tls -}}
- name: tmp
  emptyDir: {sizeLimit: {{ $values.tmpSizeLimit }}}
{{- range .uses }}
{{- $secret := index $tls . }}
- name: tls-{{ . }}
  secret:
    secretName: {{ $secret.existingSecret }}
    # 0440: root and the pods' group (fsGroup) read the files, nobody else.
    defaultMode: 288
    items:
      - {key: {{ $secret.caKey | quote }}, path: ca.crt}
      {{- if $secret.clientCertificate }}
      - {key: {{ $secret.certKey | quote }}, path: tls.crt}
      - {key: {{ $secret.keyKey | quote }}, path: tls.key}
      {{- end }}
{{- end }}
{{- with .pod.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The mounts of a PrintCloud container: (dict "uses" (list "kafka") "pod" podSettings) */}}
{{- define "printcloud.volumeMounts" -}}
- {name: tmp, mountPath: /tmp}
{{- range .uses }}
- {name: tls-{{ . }}, mountPath: {{ include "printcloud.tlsDir" . }}, readOnly: true}
{{- end }}
{{- with .pod.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The pod settings of one service, its own combined with the global ones, as JSON; with no name,
the global ones alone (hook Jobs, the `helm test` pod): (dict "root" $ "name" "jobs").
Maps and resources merge key by key (the service's keys win), lists concatenate (global first),
and the rest is the service's when set, else the global value.
*/}}
{{- define "printcloud.podSettings" -}}
{{- $global := .root.Values -}}
{{- $own := dict -}}
{{- if .name }}{{ $own = index .root.Values.services .name }}{{ end -}}
{{- $settings := dict -}}
{{- range list "podAnnotations" "podLabels" "nodeSelector" "resources" }}
{{- $_ := set $settings . (mergeOverwrite (deepCopy (index $global . | default dict)) (deepCopy (index $own . | default dict))) }}
{{- end }}
{{- range list "tolerations" "extraVolumes" "extraVolumeMounts" "extraContainers" "initContainers" }}
{{- $_ := set $settings . (concat (index $global . | default list) (index $own . | default list)) }}
{{- end }}
{{- range list "priorityClassName" "affinity" "topologySpreadConstraints" }}
{{- $_ := set $settings . (index $own . | default (index $global .)) }}
{{- end }}
{{- toJson $settings -}}
{{- end -}}

{{/*
Where alerts' runbooks are: metrics.prometheusRule.runbookBaseUrl, else docs/runbooks.md in the
PrintCloud repository at this chart's release (on main for a development version).
*/}}
{{- define "printcloud.runbookBaseUrl" -}}
{{- with .Values.metrics.prometheusRule.runbookBaseUrl -}}
{{ . }}
{{- else -}}
{{- $version := semver .Chart.AppVersion -}}
https://github.com/printcloud/printcloud/blob/{{ if $version.Prerelease }}main{{ else }}{{ printf "v%d.%d.%d" $version.Major $version.Minor $version.Patch }}{{ end }}/docs/runbooks.md
{{- end -}}
{{- end -}}

{{/* Values renamed since an earlier chart: refused with what to write instead. */}}
{{- define "printcloud.refuseRenamedValues" -}}
{{- if .Values.metrics.serviceMonitor }}
{{- fail "metrics.serviceMonitor is now metrics.podMonitor (it renders a PodMonitor): move its enabled, interval and labels there" }}
{{- end }}
{{- if .Values.kafka.tls.caSecret }}
{{- fail "kafka.tls.caSecret is now kafka.tls.existingSecret (mounted at /etc/printcloud/tls/kafka/, key kafka.tls.caKey as ca.crt): rename it" }}
{{- end }}
{{- end -}}

{{/*
Pod settings every pod shares: (dict "root" $ "hook" bool "pod" podSettings). Hooks run before
the release's ServiceAccount exists, so they use the namespace's default one; no pod mounts a token.
*/}}
{{- define "printcloud.podSpecCommon" -}}
{{- if not .hook -}}
serviceAccountName: {{ include "printcloud.serviceAccountName" .root }}
{{ end -}}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.image.pullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- with .pod.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .pod.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "printcloud.containerCommon" -}}
image: {{ include "printcloud.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
securityContext:
  {{- toYaml .Values.containerSecurityContext | nindent 2 }}
{{- end -}}

{{/* A container running `python -m <module> migrate` with the service's own settings and files:
(dict "root" $ "name" "jobs" "wiring" wiring "pod" podSettings of the Job). */}}
{{- define "printcloud.migrationContainer" -}}
- name: migrate-{{ .name }}
  {{- include "printcloud.containerCommon" .root | nindent 2 }}
  command: ["python", "-m", {{ .wiring.module | quote }}, "migrate"]
  env:
    {{- include "printcloud.env" (dict "root" .root "name" .name) | nindent 4 }}
  volumeMounts:
    {{- include "printcloud.volumeMounts" (dict "uses" (include "printcloud.tlsUses" (dict "root" .root "name" .name) | fromJsonArray) "pod" .pod) | nindent 4 }}
  resources:
    {{- toYaml (include "printcloud.podSettings" (dict "root" .root "name" .name) | fromJson).resources | nindent 4 }}
{{- end -}}
