{{/* Everything a WDS service chart renders: `{{ include "wds-lib.all" . }}` in its templates. */}}
{{- define "wds-lib.all" -}}
{{- include "wds-lib.checks" . -}}
{{- $docs := list
  (include "wds-lib.serviceaccount" .)
  (include "wds-lib.configmap" .)
  (include "wds-lib.secret" .)
  (include "wds-lib.deployment" .)
  (include "wds-lib.service" .)
  (include "wds-lib.hpa" .)
  (include "wds-lib.keda" .)
  (include "wds-lib.pdb" .)
  (include "wds-lib.networkpolicy" .)
  (include "wds-lib.migrations" .)
-}}
{{- range $docs }}
{{- if trim . }}
---
{{ trim . }}
{{- end }}
{{- end }}
{{- end -}}
