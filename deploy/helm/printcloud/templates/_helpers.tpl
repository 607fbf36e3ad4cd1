{{- define "printcloud.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "printcloud.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "printcloud.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The gRPC target of a service, by its key in .Values.services */}}
{{- define "printcloud.grpcTarget" -}}
{{- $svc := index .root.Values.services .name -}}
{{ include "printcloud.fullname" .root }}-{{ .name }}:{{ $svc.grpc }}
{{- end -}}
