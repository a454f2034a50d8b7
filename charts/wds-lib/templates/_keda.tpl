{{/*
KEDA ScaledObject (keda.sh/v1alpha1) replacing the CPU HPA when global.keda.enabled or keda.enabled,
for the charts that name a trigger: JetStream consumer lag (scraper, crawler, batch), the webhook
outbox backlog in PostgreSQL (webhooks; KEDA reads DATABASE_URL from the container's env), or a
Prometheus query over a metric the service exports (browser-pool: live contexts). KEDA's CRDs must
be installed first (the KEDA operator chart does it).
*/}}
{{- define "wds-lib.keda" -}}
{{- if include "wds-lib.kedaEnabled" . }}
{{- $g := .Values.global | default dict -}}
{{- $gk := dig "keda" (dict) $g -}}
{{- $k := .Values.keda -}}
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "wds-lib.fullname" . }}
  minReplicaCount: {{ $k.minReplicas }}
  maxReplicaCount: {{ $k.maxReplicas }}
  pollingInterval: {{ $k.pollingInterval }}
  cooldownPeriod: {{ $k.cooldownPeriod }}
  triggers:
    {{- if eq $k.trigger "nats-jetstream" }}
    - type: nats-jetstream
      metadata:
        {{- if eq (include "wds-lib.bundled" (list . "nats")) "true" }}
        natsServerMonitoringEndpoint: {{ printf "%s-nats.%s.svc:8222" .Release.Name .Release.Namespace | quote }}
        {{- else }}
        natsServerMonitoringEndpoint: {{ required "global.keda.natsMonitoringEndpoint is required" (dig "natsMonitoringEndpoint" "" $gk) | quote }}
        {{- end }}
        account: {{ dig "natsAccount" "$G" $gk | quote }}
        stream: {{ required "keda.stream is required" $k.stream | quote }}
        consumer: {{ required "keda.consumer is required" $k.consumer | quote }}
        lagThreshold: {{ $k.lagThreshold | quote }}
        activationLagThreshold: {{ $k.activationLagThreshold | default 0 | quote }}
    {{- else if eq $k.trigger "postgresql" }}
    - type: postgresql
      metadata:
        connectionFromEnv: DATABASE_URL
        query: {{ required "keda.query is required" $k.query | quote }}
        targetQueryValue: {{ $k.threshold | quote }}
        activationTargetQueryValue: {{ $k.activationThreshold | default 0 | quote }}
    {{- else if eq $k.trigger "prometheus" }}
    - type: prometheus
      metadata:
        serverAddress: {{ required "global.keda.prometheusServerAddress is required" (dig "prometheusServerAddress" "" $gk) | quote }}
        query: {{ tpl (required "keda.query is required" $k.query) . | quote }}
        threshold: {{ $k.threshold | quote }}
        activationThreshold: {{ $k.activationThreshold | default 0 | quote }}
    {{- end }}
    {{- if .Values.autoscaling.targetCPUUtilizationPercentage }}
    # CPU stays a floor: KEDA's HPA takes the highest replica count of all triggers.
    - type: cpu
      metricType: Utilization
      metadata:
        value: {{ .Values.autoscaling.targetCPUUtilizationPercentage | quote }}
    {{- end }}
{{- end }}
{{- end -}}
