{{/*
Rules values.schema.json cannot express (JSON Schema compares no two fields): each fails the render
with the value to change. Included first by wds-lib.all.
*/}}
{{- define "wds-lib.checks" -}}
{{- $v := .Values -}}
{{- $name := include "wds-lib.app" . -}}
{{- if gt (int $v.autoscaling.minReplicas) (int $v.autoscaling.maxReplicas) -}}
{{- fail (printf "%s: autoscaling.minReplicas (%v) > autoscaling.maxReplicas (%v)" $name $v.autoscaling.minReplicas $v.autoscaling.maxReplicas) -}}
{{- end -}}
{{- if and $v.keda.trigger (gt (int $v.keda.minReplicas) (int $v.keda.maxReplicas)) -}}
{{- fail (printf "%s: keda.minReplicas (%v) > keda.maxReplicas (%v)" $name $v.keda.minReplicas $v.keda.maxReplicas) -}}
{{- end -}}
{{- $budget := sub (sub (int $v.terminationGracePeriodSeconds) (int $v.preStopSleepSeconds)) 5 -}}
{{- if lt $budget (int $v.longestTaskSeconds) -}}
{{- fail (printf "%s: terminationGracePeriodSeconds (%v) must be >= longestTaskSeconds (%v) + preStopSleepSeconds (%v) + 5" $name $v.terminationGracePeriodSeconds $v.longestTaskSeconds $v.preStopSleepSeconds) -}}
{{- end -}}
{{- /* Chromium's memory: browsers x recycle threshold + Node + /dev/shm within the limit. */ -}}
{{- $env := merge (dict) ($v.env | default dict) (dig "env" (dict) ($v.global | default dict)) -}}
{{- $limit := dig "limits" "memory" "" ($v.resources | default dict) -}}
{{- if and (hasKey $env "WDS_BROWSER_PROCESSES") (hasKey $env "WDS_BROWSER_RECYCLE_MB") $limit -}}
{{- $browsers := mul (int $env.WDS_BROWSER_PROCESSES) (int $env.WDS_BROWSER_RECYCLE_MB) -}}
{{- $shm := 0 -}}
{{- if $v.shm.enabled -}}{{- $shm = include "wds-lib.mebibytes" $v.shm.sizeLimit | int -}}{{- end -}}
{{- $need := add $browsers 350 $shm -}}
{{- $have := include "wds-lib.mebibytes" $limit | int -}}
{{- if gt $need $have -}}
{{- fail (printf "%s: resources.limits.memory %v (%d MiB) < WDS_BROWSER_PROCESSES x WDS_BROWSER_RECYCLE_MB (%d MiB) + Node (350 MiB) + shm.sizeLimit (%d MiB) = %d MiB" $name $limit $have $browsers $shm $need) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* A memory quantity in MiB (rounded down): 3Gi, 1536Mi, 2G, 500M, 1e9, 1073741824. */}}
{{- define "wds-lib.mebibytes" -}}
{{- $q := toString . -}}
{{- $num := regexFind "^[0-9.]+" $q | float64 -}}
{{- $unit := trimPrefix (regexFind "^[0-9.]+" $q) $q -}}
{{- $bytes := dict "" 1.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "k" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 -}}
{{- if not (hasKey $bytes $unit) -}}{{- fail (printf "cannot read the memory quantity %q" $q) -}}{{- end -}}
{{- div (mulf $num (get $bytes $unit) | int64) 1048576 -}}
{{- end -}}
