{{/* Names, labels and values shared by every WDS service chart. */}}

{{- define "wds-lib.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "wds-lib.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "wds-lib.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "wds-lib.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The app in the shared image: apps/<app>/dist/main.js. Defaults to the chart name. */}}
{{- define "wds-lib.app" -}}
{{- default .Chart.Name .Values.app -}}
{{- end -}}

{{/* Pods of the release's workload and of its migrations Job (NetworkPolicy selects both). */}}
{{- define "wds-lib.baseLabels" -}}
app.kubernetes.io/name: {{ include "wds-lib.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The long-running pods only: Service, PDB and Deployment select on this. */}}
{{- define "wds-lib.selectorLabels" -}}
{{ include "wds-lib.baseLabels" . }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "wds-lib.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "wds-lib.baseLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: wds
{{- end -}}

{{- define "wds-lib.image" -}}
{{- $g := .Values.global | default dict -}}
{{- $repo := .Values.image.repository | default (dig "image" "repository" "" $g) -}}
{{- $tag := .Values.image.tag | default (dig "image" "tag" "" $g) | default .Chart.AppVersion -}}
{{- if not $repo -}}{{- fail "image.repository (or global.image.repository) is required" -}}{{- end -}}
{{- printf "%s:%s" $repo $tag -}}
{{- end -}}

{{- define "wds-lib.imagePullPolicy" -}}
{{- $g := .Values.global | default dict -}}
{{- .Values.image.pullPolicy | default (dig "image" "pullPolicy" "IfNotPresent" $g) -}}
{{- end -}}

{{- define "wds-lib.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "wds-lib.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Plain environment: global.env, then the chart's env, then what the chart itself decides. */}}
{{- define "wds-lib.envMap" -}}
{{- $g := .Values.global | default dict -}}
{{- $env := merge (dict) (.Values.env | default dict) (dig "env" (dict) $g) -}}
{{- $_ := set $env "HEALTH_PORT" (toString .Values.healthPort) -}}
{{- $_ := set $env "OTEL_SERVICE_NAME" (include "wds-lib.app" .) -}}
{{- if .Values.http.enabled -}}{{- $_ := set $env "PORT" (toString .Values.http.port) -}}{{- end -}}
{{- if .Values.migrations.enabled -}}{{- $_ := set $env "WDS_MIGRATE_ON_START" "false" -}}{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{- define "wds-lib.secretEnvMap" -}}
{{- $g := .Values.global | default dict -}}
{{- toYaml (merge (dict) (.Values.secretEnv | default dict) (dig "secretEnv" (dict) $g)) -}}
{{- end -}}

{{- define "wds-lib.envFromSecrets" -}}
{{- $g := .Values.global | default dict -}}
{{- $names := concat (dig "envFromSecrets" (list) $g) (.Values.envFromSecrets | default list) | uniq -}}
{{- range $names }}
- secretRef:
    name: {{ . }}
{{- end }}
{{- end -}}

{{/* The port the probes use: the HTTP port for an app that serves HTTP, else the health port. */}}
{{- define "wds-lib.probePort" -}}
{{- if .Values.http.enabled -}}http{{- else -}}health{{- end -}}
{{- end -}}

{{- define "wds-lib.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsUser }}
fsGroup: {{ .Values.securityContext.runAsUser }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "wds-lib.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
{{- end -}}
