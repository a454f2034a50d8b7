{{/*
Ingress: the app's port from the configured peers (all when none). Egress: DNS, NATS, PostgreSQL,
the OTLP collector, extra rules, and for apps that fetch user URLs (internetEgress) the public
internet but no private, loopback, link-local or CGNAT range: the cluster stays out of reach even
if the application-level network policy were bypassed.
*/}}
{{- define "wds-lib.networkpolicy" -}}
{{- if .Values.networkPolicy.enabled }}
{{- $g := .Values.global | default dict -}}
{{- $np := dig "networkPolicy" (dict) $g -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "wds-lib.fullname" . }}
  labels:
    {{- include "wds-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "wds-lib.baseLabels" . | nindent 6 }}
  policyTypes: ["Ingress", "Egress"]
  ingress:
    - ports:
        - port: {{ if .Values.http.enabled }}{{ .Values.http.port }}{{ else }}{{ .Values.healthPort }}{{ end }}
          protocol: TCP
      {{- with .Values.networkPolicy.ingressFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- with .Values.sessions }}
    # The session endpoint (browser sessions' cdpUrl and live views, agent runs' live views): the
    # gateway only.
    - ports:
        - port: {{ .port }}
          protocol: TCP
      {{- if not .ingressFrom }}{{ fail "sessions.ingressFrom is empty: the session port would be open to every pod" }}{{ end }}
      from:
        {{- toYaml .ingressFrom | nindent 8 }}
    {{- end }}
  egress:
    # DNS to the cluster DNS only (global.networkPolicy.dns.to), never to arbitrary resolvers.
    - ports:
        - { port: {{ dig "dns" "port" 53 $np }}, protocol: UDP }
        - { port: {{ dig "dns" "port" 53 $np }}, protocol: TCP }
      to:
        {{- include "wds-lib.peers" (list $np "dns") | nindent 8 }}
    - ports:
        - port: {{ dig "nats" "port" 4222 $np }}
          protocol: TCP
      to:
        {{- include "wds-lib.peers" (list $np "nats") | nindent 8 }}
    - ports:
        - port: {{ dig "postgres" "port" 5432 $np }}
          protocol: TCP
      to:
        {{- include "wds-lib.peers" (list $np "postgres") | nindent 8 }}
    {{- with (dig "otlp" "to" (list) $np) }}
    - ports:
        - { port: 4317, protocol: TCP }
        - { port: 4318, protocol: TCP }
      to:
        {{- toYaml . | nindent 8 }}
    {{- end }}
    {{- if .Values.networkPolicy.internetEgress }}
    - to:
        - ipBlock:
            cidr: 0.0.0.0/0
            except:
              {{- toYaml .Values.networkPolicy.blockedIPv4 | nindent 14 }}
        - ipBlock:
            cidr: ::/0
            except:
              {{- toYaml .Values.networkPolicy.blockedIPv6 | nindent 14 }}
    {{- end }}
    {{- with .Values.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}
{{- end -}}


{{/* global.networkPolicy.<name>.to, refused when empty: an empty `to` would allow every destination. */}}
{{- define "wds-lib.peers" -}}
{{- $np := index . 0 -}}{{- $name := index . 1 -}}
{{- $to := dig $name "to" (list) $np -}}
{{- if not $to -}}{{- fail (printf "global.networkPolicy.%s.to is empty: that would allow egress to any destination on its port" $name) -}}{{- end -}}
{{- toYaml $to -}}
{{- end -}}
