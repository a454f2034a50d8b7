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
  egress:
    - ports:
        - { port: 53, protocol: UDP }
        - { port: 53, protocol: TCP }
    - ports:
        - port: {{ dig "nats" "port" 4222 $np }}
          protocol: TCP
      to:
        {{- toYaml (dig "nats" "to" (list) $np) | nindent 8 }}
    - ports:
        - port: {{ dig "postgres" "port" 5432 $np }}
          protocol: TCP
      to:
        {{- toYaml (dig "postgres" "to" (list) $np) | nindent 8 }}
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
