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

{{/*
"true" when the umbrella release runs its own NATS or PostgreSQL (global.bundled.<which>, the
charts/nats and charts/postgresql dependencies): NATS_URL and DATABASE_URL then point at them.
*/}}
{{- define "wds-lib.bundled" -}}
{{- $ctx := index . 0 -}}
{{- dig "bundled" (index . 1) false ($ctx.Values.global | default dict) | toString -}}
{{- end -}}

{{/*
"true" when schema migrations run as the pre-install/pre-upgrade hook Job. With a bundled
PostgreSQL they cannot (the hook would run before the release's PostgreSQL exists): each service
then migrates on start (WDS_MIGRATE_ON_START, serialised by an advisory lock per schema).
*/}}
{{- define "wds-lib.migrationsHook" -}}
{{- and .Values.migrations.enabled (ne (include "wds-lib.bundled" (list . "postgresql")) "true") | toString -}}
{{- end -}}

{{/* Plain environment: global.env, then the chart's env, then what the chart itself decides. */}}
{{- define "wds-lib.envMap" -}}
{{- $g := .Values.global | default dict -}}
{{- $env := merge (dict) (.Values.env | default dict) (dig "env" (dict) $g) -}}
{{- $_ := set $env "HEALTH_PORT" (toString .Values.healthPort) -}}
{{- $_ := set $env "OTEL_SERVICE_NAME" (include "wds-lib.app" .) -}}
{{- with (dig "otel" "endpoint" "" $g) -}}{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" . -}}{{- end -}}
{{- if .Values.http.enabled -}}{{- $_ := set $env "PORT" (toString .Values.http.port) -}}{{- end -}}
{{- /* The bundled NATS's URL carries its token: it comes from that release's Secret (secretKeyEnv). */ -}}
{{- if eq (include "wds-lib.bundled" (list . "nats")) "true" -}}
{{- $_ := unset $env "NATS_URL" -}}
{{- end -}}
{{- if eq (include "wds-lib.migrationsHook" .) "true" -}}{{- $_ := set $env "WDS_MIGRATE_ON_START" "false" -}}{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/*
Secret variables rendered into the chart's Secret: the chart's own secretEnv, and from
global.secretEnv only the keys this service lists in secretKeys (least privilege: the scraper never
gets the admin token).
*/}}
{{- define "wds-lib.secretEnvMap" -}}
{{- $g := .Values.global | default dict -}}
{{- $all := dig "secretEnv" (dict) $g -}}
{{- $out := deepCopy (.Values.secretEnv | default dict) -}}
{{- range $key, $_ := (.Values.secretKeys | default dict) -}}
{{- if and (hasKey $all $key) (not (hasKey $out $key)) -}}{{- $_ := set $out $key (get $all $key) -}}{{- end -}}
{{- end -}}
{{- if eq (include "wds-lib.bundled" (list . "postgresql")) "true" -}}{{- $_ := unset $out "DATABASE_URL" -}}{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The chart's secretKeys read from global.existingSecret (env entries, secretKeyRef). */}}
{{- define "wds-lib.secretKeyEnv" -}}
{{- if eq (include "wds-lib.bundled" (list . "nats")) "true" }}
- name: NATS_URL
  valueFrom:
    secretKeyRef:
      name: {{ printf "%s-nats" .Release.Name | trunc 63 | trimSuffix "-" }}
      key: NATS_URL
{{- end }}
{{- include "wds-lib.secretKeyRefs" (list . (.Values.secretKeys | default dict)) -}}
{{- end -}}

{{/* The migrations Job needs DATABASE_URL and nothing else. */}}
{{- define "wds-lib.migrateSecretKeys" -}}
{{- toYaml (pick (.Values.secretKeys | default dict) "DATABASE_URL") -}}
{{- end -}}

{{- define "wds-lib.secretKeyRefs" -}}
{{- $ctx := index . 0 -}}{{- $keys := deepCopy (index . 1) -}}
{{- $g := $ctx.Values.global | default dict -}}
{{- $secret := dig "existingSecret" "" $g -}}
{{- if and (hasKey $keys "DATABASE_URL") (eq (include "wds-lib.bundled" (list $ctx "postgresql")) "true") }}
{{- $_ := unset $keys "DATABASE_URL" }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ printf "%s-postgresql" $ctx.Release.Name | trunc 63 | trimSuffix "-" }}
      key: DATABASE_URL
{{- end }}
{{- if $secret }}
{{- range $key, $need := $keys }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      optional: {{ eq $need "optional" }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "wds-lib.envFromSecrets" -}}
{{- range (.Values.envFromSecrets | default list | uniq) }}
- secretRef:
    name: {{ . }}
{{- end }}
{{- end -}}

{{/*
Identity for logs and telemetry: the pod name is the service instance (replicas no longer collide),
with namespace and node as OpenTelemetry resource attributes (OTEL_RESOURCE_ATTRIBUTES).
*/}}
{{- define "wds-lib.identityEnv" -}}
{{- $g := .Values.global | default dict -}}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: K8S_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: K8S_NODE_NAME
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: WDS_INSTANCE_ID
  value: $(K8S_POD_NAME)
{{- $attrs := list "service.instance.id=$(K8S_POD_NAME)" "k8s.pod.name=$(K8S_POD_NAME)" "k8s.namespace.name=$(K8S_NAMESPACE)" "k8s.node.name=$(K8S_NODE_NAME)" (printf "k8s.deployment.name=%s" (include "wds-lib.fullname" .)) "service.namespace=wds" (printf "service.version=%s" .Chart.AppVersion) }}
{{- range $k, $v := (dig "otel" "resourceAttributes" (dict) $g) }}
{{- $attrs = append $attrs (printf "%s=%v" $k $v) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attrs | quote }}
{{- end -}}

{{/* KEDA scales this Deployment (global.keda.enabled or keda.enabled, for a chart with a trigger). */}}
{{- define "wds-lib.kedaEnabled" -}}
{{- $g := .Values.global | default dict -}}
{{- if and .Values.keda.trigger (or .Values.keda.enabled (dig "keda" "enabled" false $g)) -}}true{{- end -}}
{{- end -}}

{{/* The port the probes use: the HTTP port for an app that serves HTTP, else the health port. */}}
{{- define "wds-lib.probePort" -}}
{{- if .Values.http.enabled -}}http{{- else -}}health{{- end -}}
{{- end -}}

{{/* The restricted Pod: every service, and every migration Job. */}}
{{- define "wds-lib.restrictedPodSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsUser }}
fsGroup: {{ .Values.securityContext.runAsUser }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "wds-lib.restrictedContainerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* A service's Pod: restricted, except browser-pool with browser sessions on. */}}
{{- define "wds-lib.podSecurityContext" -}}
{{- if (.Values.sessions | default dict).enabled -}}
# Browser sessions' code sandbox (charts/browser-pool/values.yaml `sessions`): root of the Pod's own
# user namespace, so it can switch to the sandbox uids; the runtime's seccomp and AppArmor defaults
# refuse the unshare/mount calls of bubblewrap.
runAsNonRoot: false
runAsUser: 0
runAsGroup: 0
fsGroup: 0
seccompProfile:
  type: Unconfined
appArmorProfile:
  type: Unconfined
{{- else -}}
{{- include "wds-lib.restrictedPodSecurityContext" . -}}
{{- end -}}
{{- end -}}

{{- define "wds-lib.containerSecurityContext" -}}
{{- if (.Values.sessions | default dict).enabled -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: false
# Switch to the sandbox uids, own their directories, remove them and signal their processes.
capabilities:
  drop: ["ALL"]
  add: ["SETUID", "SETGID", "CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL"]
# A fresh /proc for each sandbox's PID namespace (refused over a masked /proc).
procMount: Unmasked
{{- else -}}
{{- include "wds-lib.restrictedContainerSecurityContext" . -}}
{{- end -}}
{{- end -}}

{{/*
Browser sessions' variables (browser-pool `sessions`); explicit env wins over the ConfigMap. The
session endpoint is advertised whether or not sessions are on: it also serves the live views of
agent runs.
*/}}
{{- define "wds-lib.sessionsEnv" -}}
{{- with .Values.sessions }}
- name: POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
- name: WDS_BROWSER_SESSION_PORT
  value: {{ .port | quote }}
- name: WDS_BROWSER_SESSION_ADVERTISE
  value: "http://$(POD_IP):{{ .port }}"
{{- if .enabled }}
- name: WDS_BROWSER_SESSIONS
  value: {{ .perReplica | quote }}
- name: WDS_SESSION_WARM_BROWSERS
  value: {{ .warmBrowsers | quote }}
- name: WDS_SESSION_RECORDING_FPS
  value: {{ .recordingFps | default 4 | quote }}
- name: WDS_INTERACT_RECORDING
  value: {{ ne .interactRecording false | quote }}
- name: WDS_SANDBOX_UID_BASE
  value: {{ .uidBase | quote }}
- name: WDS_SESSION_DIR
  value: /sessions
{{- else }}
- name: WDS_BROWSER_SESSIONS
  value: "0"
{{- end }}
{{- end }}
{{- end -}}
