{{- define "nats.fullname" -}}{{ printf "%s-nats" .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}

{{- define "nats.selectorLabels" -}}
app.kubernetes.io/name: nats
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "nats.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{ include "nats.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: wds
app.kubernetes.io/component: messaging
{{- end -}}

{{/* "8Gi" as bytes, for the server's configuration. */}}
{{- define "nats.bytes" -}}
{{- $units := dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $n := regexFind "^[0-9]+" . | int64 -}}
{{- $u := trimPrefix (toString $n) . -}}
{{- if $u }}{{ mul $n (get $units $u) }}{{ else }}{{ $n }}{{ end -}}
{{- end -}}
