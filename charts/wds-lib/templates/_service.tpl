{{- define "wds-lib.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .Values.service.type }}
  selector:
    {{- include "wds-lib.selectorLabels" . | nindent 4 }}
  ports:
    {{- if .Values.http.enabled }}
    - name: http
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
    {{- else }}
    - name: health
      port: {{ .Values.healthPort }}
      targetPort: health
      protocol: TCP
    {{- end }}
{{- end -}}

{{- define "wds-lib.hpa" -}}
{{- if and .Values.autoscaling.enabled (not (include "wds-lib.kedaEnabled" .)) }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "wds-lib.fullname" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
  metrics:
    {{- if .Values.autoscaling.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .Values.autoscaling.targetCPUUtilizationPercentage }}
    {{- end }}
    {{- with .Values.autoscaling.extraMetrics }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.autoscaling.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}

{{- define "wds-lib.pdb" -}}
{{- if .Values.podDisruptionBudget.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .Values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "wds-lib.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}
