{{- define "wds-lib.envFrom" -}}
- configMapRef:
    name: {{ include "wds-lib.fullname" . }}
{{- if (include "wds-lib.secretEnvMap" . | fromYaml) }}
- secretRef:
    name: {{ include "wds-lib.fullname" . }}
{{- end }}
{{- include "wds-lib.envFromSecrets" . }}
{{- end -}}

{{- define "wds-lib.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: server
spec:
  {{- if not (or .Values.autoscaling.enabled (include "wds-lib.kedaEnabled" .)) }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "wds-lib.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "wds-lib.selectorLabels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/env: {{ printf "%s%s%s" (include "wds-lib.envMap" .) (include "wds-lib.secretEnvMap" .) (include "wds-lib.secretKeyEnv" .) | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "wds-lib.serviceAccountName" . }}
      automountServiceAccountToken: false
      {{- if (.Values.sessions | default dict).enabled }}
      # The Pod's own user namespace: its root (needed for the sandbox's uid switch) is not the host's.
      hostUsers: false
      {{- end }}
      securityContext:
        {{- include "wds-lib.podSecurityContext" . | nindent 8 }}
      # Longer than the app's SHUTDOWN_GRACE_MS, so a drain finishes before the kubelet kills.
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      {{- with (.Values.imagePullSecrets | default (dig "imagePullSecrets" (list) (.Values.global | default dict))) }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ include "wds-lib.app" . }}
          image: {{ include "wds-lib.image" . }}
          imagePullPolicy: {{ include "wds-lib.imagePullPolicy" . }}
          # args, not command: the image's entrypoint (tini) stays PID 1.
          args: ["node", "apps/{{ include "wds-lib.app" . }}/dist/main.js"]
          ports:
            {{- if .Values.http.enabled }}
            - name: http
              containerPort: {{ .Values.http.port }}
              protocol: TCP
            {{- else }}
            - name: health
              containerPort: {{ .Values.healthPort }}
              protocol: TCP
            {{- end }}
            {{- if .Values.sessions }}
            # The session endpoint: browser sessions (when on) and agent runs' live views.
            - name: sessions
              containerPort: {{ .Values.sessions.port }}
              protocol: TCP
            {{- end }}
          envFrom:
            {{- include "wds-lib.envFrom" . | nindent 12 }}
          env:
            {{- include "wds-lib.identityEnv" . | nindent 12 }}
            # Drain budget: what is left of the grace period after the preStop sleep, minus 5 s.
            - name: SHUTDOWN_GRACE_MS
              value: {{ mul (sub (sub .Values.terminationGracePeriodSeconds .Values.preStopSleepSeconds) 5) 1000 | quote }}
            {{- with (include "wds-lib.secretKeyEnv" . | trim) }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with (include "wds-lib.sessionsEnv" . | trim) }}
            {{- . | nindent 12 }}
            {{- end }}
          {{- if gt (int .Values.preStopSleepSeconds) 0 }}
          # Endpoints and load balancers drop the Pod while it sleeps; SIGTERM (drain) comes after.
          lifecycle:
            preStop:
              sleep:
                seconds: {{ .Values.preStopSleepSeconds }}
          {{- end }}
          startupProbe:
            httpGet:
              path: /health/live
              port: {{ include "wds-lib.probePort" . }}
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet:
              path: /health/live
              port: {{ include "wds-lib.probePort" . }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /health/ready
              port: {{ include "wds-lib.probePort" . }}
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            {{- include "wds-lib.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if .Values.shm.enabled }}
            - name: shm
              mountPath: /dev/shm
            {{- end }}
            {{- if (.Values.sessions | default dict).enabled }}
            - name: sessions
              mountPath: /sessions
            {{- end }}
      volumes:
        # The root filesystem is read-only; Node and Chromium still need a scratch directory.
        - name: tmp
          emptyDir:
            sizeLimit: {{ .Values.tmpSizeLimit }}
        {{- if .Values.shm.enabled }}
        # Chromium keeps renderer memory in /dev/shm; the container default (64 MiB) crashes tabs.
        - name: shm
          emptyDir:
            medium: Memory
            sizeLimit: {{ .Values.shm.sizeLimit }}
        {{- end }}
        {{- if (.Values.sessions | default dict).enabled }}
        # Browser sessions' private directories (profiles, scratch, sockets), removed at each end.
        - name: sessions
          emptyDir:
            sizeLimit: {{ .Values.sessions.dirSizeLimit }}
        {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "wds-lib.selectorLabels" . | nindent 14 }}
{{- end -}}
