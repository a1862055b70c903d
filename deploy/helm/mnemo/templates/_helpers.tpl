{{/* mnemo.name is the chart name, or nameOverride. */}}
{{- define "mnemo.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* mnemo.fullname names the release's objects; DNS names stop at 63 characters. */}}
{{- define "mnemo.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mnemo.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mnemo.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mnemo.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "mnemo.labels" -}}
helm.sh/chart: {{ include "mnemo.chart" . }}
{{ include "mnemo.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* mnemo.secretName is the Secret the pods read their tokens and database URL from. */}}
{{- define "mnemo.secretName" -}}
{{- default (include "mnemo.fullname" .) .Values.existingSecret }}
{{- end }}

{{- define "mnemo.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* mnemo.slackMode is socket or http, checked, with what each needs. */}}
{{- define "mnemo.slackMode" -}}
{{- $mode := .Values.slack.mode | default "socket" }}
{{- if not (has $mode (list "socket" "http")) }}
{{- fail (printf "slack.mode must be socket or http, not %q" $mode) }}
{{- end }}
{{- if and (eq $mode "socket") .Values.ingress.enabled }}
{{- fail "ingress.enabled needs slack.mode=http: in socket mode Slack is reached by an outbound websocket" }}
{{- end }}
{{- if and (eq $mode "socket") .Values.autoscaling.enabled }}
{{- fail "autoscaling.enabled needs slack.mode=http: Socket Mode allows at most 10 connections per app" }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.host) }}
{{- fail "ingress.host is required with ingress.enabled" }}
{{- end }}
{{- $mode }}
{{- end }}
