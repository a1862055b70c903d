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
