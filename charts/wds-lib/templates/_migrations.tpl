{{/*
Schema migrations as a Helm hook, before the new pods start: a failed migration fails the
install/upgrade and leaves the running version untouched. The Deployment then starts with
WDS_MIGRATE_ON_START=false. Chart-managed ConfigMap/Secret do not exist yet at pre-install, so
the Job gets its environment inline and from a hook Secret of its own.
*/}}
{{- define "wds-lib.migrations" -}}
{{- if eq (include "wds-lib.migrationsHook" .) "true" }}
{{- $migrateKeys := include "wds-lib.migrateSecretKeys" . | fromYaml -}}
{{- $secret := pick (include "wds-lib.secretEnvMap" . | fromYaml) "DATABASE_URL" -}}
{{- if $secret }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "wds-lib.fullname" . }}-migrate
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-5"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded,hook-failed
type: Opaque
stringData:
  {{- range $k, $v := $secret }}
  {{ $k }}: {{ toString $v | quote }}
  {{- end }}
---
{{- end }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "wds-lib.fullname" . }}-migrate
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: migrations
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "0"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ .Values.migrations.backoffLimit }}
  activeDeadlineSeconds: {{ .Values.migrations.activeDeadlineSeconds }}
  ttlSecondsAfterFinished: 3600
  template:
    metadata:
      labels:
        {{- include "wds-lib.baseLabels" . | nindent 8 }}
        app.kubernetes.io/component: migrations
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      securityContext:
        {{- include "wds-lib.restrictedPodSecurityContext" . | nindent 8 }}
      {{- with (.Values.imagePullSecrets | default (dig "imagePullSecrets" (list) (.Values.global | default dict))) }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: migrate
          image: {{ include "wds-lib.image" . }}
          imagePullPolicy: {{ include "wds-lib.imagePullPolicy" . }}
          args: ["node", "deploy/migrate.js", "{{ include "wds-lib.app" . }}"]
          env:
            {{- range $k, $v := (include "wds-lib.envMap" . | fromYaml) }}
            - name: {{ $k }}
              value: {{ toString $v | quote }}
            {{- end }}
            {{- with (include "wds-lib.secretKeyRefs" (list . $migrateKeys) | trim) }}
            {{- . | nindent 12 }}
            {{- end }}
          {{- $fromSecrets := include "wds-lib.envFromSecrets" . }}
          {{- if or $secret $fromSecrets }}
          envFrom:
            {{- if $secret }}
            - secretRef:
                name: {{ include "wds-lib.fullname" . }}-migrate
            {{- end }}
            {{- $fromSecrets | trim | nindent 12 }}
          {{- end }}
          resources:
            {{- toYaml .Values.migrations.resources | nindent 12 }}
          securityContext:
            {{- include "wds-lib.restrictedContainerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir: {}
{{- end }}
{{- end -}}
