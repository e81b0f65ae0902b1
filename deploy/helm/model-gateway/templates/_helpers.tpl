{{/*
The apps of the split deployment: the name of each (its Dockerfile target and its Kubernetes
component label), the values key that configures it, and whether it serves HTTP behind a Service
(the two consumers serve only their probes and /metrics).
*/}}
{{- define "model-gateway.apps" -}}
gateway: { key: gateway, service: true }
control-plane: { key: controlPlane, service: true }
capture-writer: { key: captureWriter, service: false }
costing-worker: { key: costingWorker, service: false }
{{- end }}

{{/*
Which app reads which secret and CA bundle: values key -> the setting given as a file, the file's
name, the apps that get it. The apps take `<SETTING>_FILE` for every secret setting (issue 36);
the CA bundles' settings are files by nature.
*/}}
{{- define "model-gateway.secretFiles" -}}
databaseUrl: { setting: GATEWAY_DATABASE_URL_FILE, apps: [control-plane, capture-writer, costing-worker] }
operatorToken: { setting: GATEWAY_OPERATOR_TOKEN_FILE, apps: [control-plane] }
cursorSecret: { setting: GATEWAY_CURSOR_SECRET_FILE, apps: [control-plane] }
redisPassword: { setting: GATEWAY_REDIS_PASSWORD_FILE, apps: [gateway, control-plane, costing-worker] }
kafkaSaslPassword: { setting: GATEWAY_KAFKA_SASL_PASSWORD_FILE, apps: [gateway, capture-writer, costing-worker] }
kafkaClientCert: { setting: GATEWAY_KAFKA_CERT_FILE, apps: [gateway, capture-writer, costing-worker] }
kafkaClientKey: { setting: GATEWAY_KAFKA_KEY_FILE, apps: [gateway, capture-writer, costing-worker] }
s3SecretKey: { setting: GATEWAY_S3_SECRET_KEY_FILE, apps: [control-plane, capture-writer] }
{{- end }}

{{- define "model-gateway.caFiles" -}}
kafka: { setting: GATEWAY_KAFKA_CA_FILE, apps: [gateway, capture-writer, costing-worker] }
redis: { setting: GATEWAY_REDIS_CA_FILE, apps: [gateway, control-plane, costing-worker] }
database: { setting: GATEWAY_DATABASE_CA_FILE, apps: [control-plane, capture-writer, costing-worker] }
s3: { setting: GATEWAY_S3_CA_FILE, apps: [control-plane, capture-writer] }
{{- end }}

{{- define "model-gateway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{/* Labels of everything the chart renders. */}}
{{- define "model-gateway.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* Selector labels of one app; call with (dict "root" $ "app" "gateway"). */}}
{{- define "model-gateway.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .app }}
{{- end }}

{{- define "model-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "model-gateway.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end }}

{{/*
terminationGracePeriodSeconds of one app: more than its preStop, drain delay and drain timeout
together (values.yaml, gateway.drain, says why). Call with (dict "app" "gateway" "values" $app).
*/}}
{{- define "model-gateway.gracePeriod" -}}
{{- $d := .values.drain -}}
{{- $needed := add $d.preStopSeconds $d.delaySeconds $d.timeoutSeconds -}}
{{- $given := .values.terminationGracePeriodSeconds -}}
{{- if kindIs "invalid" $given -}}
{{- add $needed $d.exitSeconds -}}
{{- else if le (int $given) (int $needed) -}}
{{- fail (printf "%s: terminationGracePeriodSeconds %v must be more than preStopSeconds + delaySeconds + timeoutSeconds = %v, or the pod is killed while it drains" .app $given $needed) -}}
{{- else -}}
{{- $given -}}
{{- end -}}
{{- end }}

{{/* A setting's value as the string the app reads: a whole number stays whole (YAML reads 16777216 as a float, which would print as 1.6777216e+07). */}}
{{- define "model-gateway.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) -}}
{{- int64 . | toString | quote -}}
{{- else -}}
{{- toString . | quote -}}
{{- end -}}
{{- end }}

{{/*
The workload kind of one app: a StatefulSet for the spooling apps (all but the control plane) when
data.persistent is on, so that each replica keeps its own volume claim; a Deployment otherwise.
Call with (dict "root" $ "app" "gateway").
*/}}
{{- define "model-gateway.kind" -}}
{{- if and .root.Values.data.persistent.enabled (ne .app "control-plane") -}}
StatefulSet
{{- else -}}
Deployment
{{- end -}}
{{- end }}
