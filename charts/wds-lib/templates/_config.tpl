{{- define "wds-lib.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
data:
  {{- range $k, $v := (include "wds-lib.envMap" . | fromYaml) }}
  {{ $k }}: {{ toString $v | quote }}
  {{- end }}
{{- end -}}

{{- define "wds-lib.secret" -}}
{{- $secret := include "wds-lib.secretEnvMap" . | fromYaml -}}
{{- if $secret }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
type: Opaque
stringData:
  {{- range $k, $v := $secret }}
  {{ $k }}: {{ toString $v | quote }}
  {{- end }}
{{- end }}
{{- end -}}

{{- define "wds-lib.serviceaccount" -}}
{{- if .Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "wds-lib.serviceAccountName" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end -}}
