package deploy_test

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// make check-deploy renders the chart with helm (pinned in devtools) and
// passes the output here; `make test` has no helm, so TestRenderedChart skips.
var (
	renderedDefault        = flag.String("rendered-default", "", "helm template output with ci/check-values.yaml")
	renderedServiceMonitor = flag.String("rendered-servicemonitor", "", "helm template output with serviceMonitor.enabled=true")
	renderedHTTP           = flag.String("rendered-http", "", "helm template output in http mode, with the Ingress and the autoscaler")
	buildImageBinary       = flag.Bool("build-image-binary", false, "run the Dockerfile's go build command (slow on a fresh machine)")
	schemaErrorNoValues    = flag.String("schema-error-novalues", "", "helm template's error with no values")
	schemaErrorUnknown     = flag.String("schema-error-unknown", "", "helm template's error with an unknown value")
	schemaErrorHTTP        = flag.String("schema-error-http", "", "helm template's error in http mode without the signing secret")
)

// The chart refuses to render without the model and a secret source, and
// says which values are missing; and it refuses a value it doesn't know.
func TestChartSchemaRefusesMissingAndUnknownValues(t *testing.T) {
	if *schemaErrorNoValues == "" || *schemaErrorUnknown == "" || *schemaErrorHTTP == "" {
		t.Skip("needs helm's output: run make check-deploy")
	}
	t.Parallel()
	read := func(path string) string {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	none := read(*schemaErrorNoValues)
	require.Contains(t, none, "values don't meet the specifications of the schema")
	for _, missing := range []string{"'/config/MNEMO_MODEL': minLength", "'/existingSecret': minLength", "'/secrets/databaseUrl': minLength", "'/secrets/slackBotToken': minLength", "'/secrets/slackAppToken': minLength"} {
		require.Contains(t, none, missing)
	}
	unknown := read(*schemaErrorUnknown)
	require.Contains(t, unknown, "additional properties 'replicas' not allowed")
	// http mode needs the signing secret instead of the app token, which
	// ci/check-values.yaml has.
	http := read(*schemaErrorHTTP)
	require.Contains(t, http, "values don't meet the specifications of the schema")
	require.Contains(t, http, "'/secrets/slackSigningSecret': minLength")
	require.NotContains(t, http, "slackAppToken")
}

// values.schema.json names every value values.yaml has, and requires the
// model and a secret source.
func TestChartSchemaCoversTheValues(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	require.NoError(t, err)
	var schema struct {
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Required             []string                   `json:"required"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(raw, &schema))
	require.NotNil(t, schema.AdditionalProperties)
	require.False(t, *schema.AdditionalProperties, "strict: a misspelt value is an error")
	vals, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(vals, &v))
	for k := range v {
		require.Contains(t, schema.Properties, k, "values.yaml has %s, which the schema does not allow", k)
	}
	// And every nested value of an object the schema is strict about.
	var full map[string]any
	require.NoError(t, json.Unmarshal(raw, &full))
	requireSchemaCovers(t, full, v, "")
	require.Contains(t, string(schema.Properties["config"]), `"required": [`)
	require.Contains(t, string(schema.Properties["config"]), `"MNEMO_MODEL"`)
}

// requireSchemaCovers checks that schema allows each key of values, and
// recurses into the objects whose schema lists their properties.
func requireSchemaCovers(t *testing.T, schema, values map[string]any, path string) {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	strict := schema["additionalProperties"] == false
	for k, val := range values {
		sub, ok := props[k].(map[string]any)
		if strict {
			require.True(t, ok, "values.yaml has %s%s, which the schema does not allow", path, k)
		}
		if m, isMap := val.(map[string]any); ok && isMap {
			requireSchemaCovers(t, sub, m, path+k+".")
		}
	}
}

const chartDir = "helm/mnemo"

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type containerSecurity struct {
	AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
	RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
	RunAsUser                int   `yaml:"runAsUser"`
	Capabilities             struct {
		Drop []string `yaml:"drop"`
	} `yaml:"capabilities"`
}

type podSecurity struct {
	RunAsNonRoot *bool `yaml:"runAsNonRoot"`
	RunAsUser    int   `yaml:"runAsUser"`
}

type resources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

// chartValues is what values.yaml must default to.
type chartValues struct {
	ReplicaCount                  int               `yaml:"replicaCount"`
	HTTPPort                      int               `yaml:"httpPort"`
	Config                        map[string]any    `yaml:"config"`
	LivenessProbe                 probe             `yaml:"livenessProbe"`
	ReadinessProbe                probe             `yaml:"readinessProbe"`
	Resources                     resources         `yaml:"resources"`
	PodSecurityContext            podSecurity       `yaml:"podSecurityContext"`
	SecurityContext               containerSecurity `yaml:"securityContext"`
	TerminationGracePeriodSeconds int               `yaml:"terminationGracePeriodSeconds"`
	Service                       struct {
		Port int `yaml:"port"`
	} `yaml:"service"`
	ServiceMonitor struct {
		Enabled bool `yaml:"enabled"`
	} `yaml:"serviceMonitor"`
	Migration struct {
		Enabled bool `yaml:"enabled"`
	} `yaml:"migration"`
	ExistingSecret string `yaml:"existingSecret"`
}

func TestChartValuesDefaults(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	require.NoError(t, err)
	var v chartValues
	require.NoError(t, yaml.Unmarshal(raw, &v))

	require.Equal(t, 2, v.ReplicaCount)
	require.Equal(t, 9464, v.HTTPPort)
	require.Equal(t, 9464, v.Service.Port)
	require.Equal(t, "/healthz", v.LivenessProbe.HTTPGet.Path)
	require.Equal(t, "/readyz", v.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, "http", v.LivenessProbe.HTTPGet.Port)
	require.Equal(t, "http", v.ReadinessProbe.HTTPGet.Port)
	require.Equal(t, resources{
		Requests: map[string]string{"cpu": "50m", "memory": "64Mi"},
		Limits:   map[string]string{"cpu": "500m", "memory": "256Mi"},
	}, v.Resources)
	require.True(t, *v.PodSecurityContext.RunAsNonRoot)
	require.Equal(t, 65532, v.PodSecurityContext.RunAsUser)
	require.True(t, *v.SecurityContext.ReadOnlyRootFilesystem)
	require.False(t, *v.SecurityContext.AllowPrivilegeEscalation)
	require.Equal(t, []string{"ALL"}, v.SecurityContext.Capabilities.Drop)
	// serve drains in-flight turns for up to 20 s before it exits.
	require.Equal(t, 30, v.TerminationGracePeriodSeconds)
	require.False(t, v.ServiceMonitor.Enabled, "the ServiceMonitor CRD is not everywhere: opt in")
	require.True(t, v.Migration.Enabled)
	require.Empty(t, v.ExistingSecret)

	var names []string
	for k := range v.Config {
		names = append(names, k)
	}
	require.NotEmpty(t, names)
	requireReadByMnemo(t, envRead(t), names, "values.yaml config")

	chart, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	require.NoError(t, err)
	var c struct {
		APIVersion string `yaml:"apiVersion"`
		Name       string `yaml:"name"`
	}
	require.NoError(t, yaml.Unmarshal(chart, &c))
	require.Equal(t, "v2", c.APIVersion)
	require.Equal(t, "mnemo", c.Name)
}

// object is one rendered Kubernetes object; Spec is decoded per kind.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec yaml.Node `yaml:"spec"`
}

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		SecretKeyRef *struct {
			Name string `yaml:"name"`
			Key  string `yaml:"key"`
		} `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	EnvFrom []struct {
		SecretRef struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Env             []envVar          `yaml:"env"`
	LivenessProbe   *probe            `yaml:"livenessProbe"`
	ReadinessProbe  *probe            `yaml:"readinessProbe"`
	Resources       resources         `yaml:"resources"`
	SecurityContext containerSecurity `yaml:"securityContext"`
}

type podTemplate struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
		AutomountServiceAccountToken  *bool       `yaml:"automountServiceAccountToken"`
		EnableServiceLinks            *bool       `yaml:"enableServiceLinks"`
		RestartPolicy                 string      `yaml:"restartPolicy"`
		SecurityContext               podSecurity `yaml:"securityContext"`
		Containers                    []container `yaml:"containers"`
	} `yaml:"spec"`
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

func readRendered(t *testing.T, path string) map[string]object {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	objs := map[string]object{}
	dec := yaml.NewDecoder(f)
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if o.Kind == "" {
			continue // an empty document between separators
		}
		key := o.Kind
		if o.Kind == "Service" && o.Metadata.Labels["app.kubernetes.io/component"] == "slack" {
			key = "Service/slack" // http mode's second Service
		}
		_, dup := objs[key]
		require.False(t, dup, "two %s objects", key)
		objs[key] = o
	}
	return objs
}

func decodeSpec(t *testing.T, o object, into any) {
	t.Helper()
	require.NoError(t, o.Spec.Decode(into), "%s spec", o.Kind)
}

// selects reports whether every label of sel is on labels.
func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func TestRenderedChart(t *testing.T) {
	if *renderedDefault == "" || *renderedServiceMonitor == "" {
		t.Skip("needs helm's output: run make check-deploy")
	}
	t.Parallel()
	objs := readRendered(t, *renderedDefault)
	withSM := readRendered(t, *renderedServiceMonitor)

	kinds := func(m map[string]object) []string {
		var k []string
		for kind := range m {
			k = append(k, kind)
		}
		slices.Sort(k)
		return k
	}
	require.Equal(t, []string{"Deployment", "Job", "PodDisruptionBudget", "Secret", "Service"}, kinds(objs))
	// The ServiceMonitor appears only when asked for, and then the rest is unchanged.
	require.Equal(t, []string{"Deployment", "Job", "PodDisruptionBudget", "Secret", "Service", "ServiceMonitor"}, kinds(withSM))

	var dep struct {
		Replicas int           `yaml:"replicas"`
		Selector labelSelector `yaml:"selector"`
		Template podTemplate   `yaml:"template"`
	}
	decodeSpec(t, objs["Deployment"], &dep)
	pod := dep.Template
	require.Equal(t, 2, dep.Replicas)
	require.True(t, selects(dep.Selector.MatchLabels, pod.Metadata.Labels))
	require.Equal(t, 30, pod.Spec.TerminationGracePeriodSeconds)
	require.False(t, *pod.Spec.AutomountServiceAccountToken)
	require.False(t, *pod.Spec.EnableServiceLinks, "service links would inject MNEMO_* variables")
	require.True(t, *pod.Spec.SecurityContext.RunAsNonRoot)
	require.Equal(t, 65532, pod.Spec.SecurityContext.RunAsUser)
	require.Len(t, pod.Spec.Containers, 1)
	c := pod.Spec.Containers[0]
	require.Equal(t, []string{"serve"}, c.Args)
	require.Len(t, c.Ports, 1)
	require.Equal(t, "http", c.Ports[0].Name)
	require.Equal(t, 9464, c.Ports[0].ContainerPort)
	require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, "http", c.LivenessProbe.HTTPGet.Port)
	require.Equal(t, "http", c.ReadinessProbe.HTTPGet.Port)
	require.Equal(t, "64Mi", c.Resources.Requests["memory"])
	require.Equal(t, "500m", c.Resources.Limits["cpu"])
	require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	require.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	env := map[string]envVar{}
	var names []string
	for _, e := range c.Env {
		env[e.Name] = e
		names = append(names, e.Name)
	}
	require.Equal(t, "0.0.0.0:9464", env["MNEMO_HTTP_ADDR"].Value)
	require.Equal(t, "socket", env["MNEMO_SLACK_MODE"].Value, "Socket Mode unless asked")
	require.NotContains(t, env, "MNEMO_SLACK_HTTP_ADDR")
	requireReadByMnemo(t, envRead(t), names, "the Deployment")
	for _, secret := range []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "MNEMO_LLM_API_KEY", "DATABASE_URL"} {
		require.NotContains(t, env, secret, "secrets come from the Secret, not plain values")
	}

	// Tokens come from the chart's Secret, which exists before the migration hook.
	secret := objs["Secret"]
	require.Len(t, c.EnvFrom, 1)
	require.Equal(t, secret.Metadata.Name, c.EnvFrom[0].SecretRef.Name)
	job := objs["Job"]
	require.Equal(t, "pre-install,pre-upgrade", job.Metadata.Annotations["helm.sh/hook"])
	require.Equal(t, "pre-install,pre-upgrade", secret.Metadata.Annotations["helm.sh/hook"])
	weight := func(o object) int {
		w, err := strconv.Atoi(o.Metadata.Annotations["helm.sh/hook-weight"])
		require.NoError(t, err, "%s hook weight", o.Kind)
		return w
	}
	require.Less(t, weight(secret), weight(job), "the Secret must be created before the Job that reads it")
	var jobSpec struct {
		Template podTemplate `yaml:"template"`
	}
	decodeSpec(t, job, &jobSpec)
	require.Equal(t, "Never", jobSpec.Template.Spec.RestartPolicy)
	require.Len(t, jobSpec.Template.Spec.Containers, 1)
	jc := jobSpec.Template.Spec.Containers[0]
	require.Equal(t, []string{"migrate"}, jc.Args)
	require.Equal(t, c.Image, jc.Image, "migrate with the schema of the version about to run")
	require.Len(t, jc.Env, 2)
	require.Equal(t, "DATABASE_URL", jc.Env[0].Name)
	require.Equal(t, secret.Metadata.Name, jc.Env[0].ValueFrom.SecretKeyRef.Name)
	require.True(t, *jobSpec.Template.Spec.SecurityContext.RunAsNonRoot)
	require.False(t, selects(dep.Selector.MatchLabels, jobSpec.Template.Metadata.Labels),
		"the Deployment must not adopt the migration pod")

	// The Service reaches the pods' http port; the ServiceMonitor scrapes it.
	svc := objs["Service"]
	var svcSpec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
	decodeSpec(t, svc, &svcSpec)
	require.True(t, selects(svcSpec.Selector, pod.Metadata.Labels))
	require.False(t, selects(svcSpec.Selector, jobSpec.Template.Metadata.Labels))
	require.Len(t, svcSpec.Ports, 1)
	require.Equal(t, 9464, svcSpec.Ports[0].Port)
	require.Equal(t, "http", svcSpec.Ports[0].TargetPort)

	sm := withSM["ServiceMonitor"]
	require.Equal(t, "monitoring.coreos.com/v1", sm.APIVersion)
	var smSpec struct {
		Selector  labelSelector `yaml:"selector"`
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"endpoints"`
	}
	decodeSpec(t, sm, &smSpec)
	require.True(t, selects(smSpec.Selector.MatchLabels, withSM["Service"].Metadata.Labels))
	require.Len(t, smSpec.Endpoints, 1)
	require.Equal(t, svcSpec.Ports[0].Name, smSpec.Endpoints[0].Port)
	require.Equal(t, "/metrics", smSpec.Endpoints[0].Path)

	var pdb struct {
		MinAvailable int           `yaml:"minAvailable"`
		Selector     labelSelector `yaml:"selector"`
	}
	decodeSpec(t, objs["PodDisruptionBudget"], &pdb)
	require.Equal(t, 1, pdb.MinAvailable)
	require.Less(t, pdb.MinAvailable, dep.Replicas, "the budget must leave room to evict a pod")
	require.True(t, selects(pdb.Selector.MatchLabels, pod.Metadata.Labels))

	// The image defaults to the chart's appVersion.
	chart, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	require.NoError(t, err)
	var meta struct {
		AppVersion string `yaml:"appVersion"`
	}
	require.NoError(t, yaml.Unmarshal(chart, &meta))
	require.True(t, strings.HasSuffix(c.Image, ":"+meta.AppVersion), c.Image)
}

// In http mode the chart adds a Service for /slack/* on the pods' slack
// port, an Ingress that routes only /slack/ to it, and an autoscaler that
// owns the replica count; the operator Service still serves health and
// metrics, on a port the Ingress never reaches.
func TestRenderedHTTPChart(t *testing.T) {
	if *renderedHTTP == "" {
		t.Skip("needs helm's output: run make check-deploy")
	}
	t.Parallel()
	objs := readRendered(t, *renderedHTTP)
	var kinds []string
	for k := range objs {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	require.Equal(t, []string{"Deployment", "HorizontalPodAutoscaler", "Ingress", "Job", "PodDisruptionBudget", "Secret", "Service", "Service/slack"}, kinds)

	var dep struct {
		Replicas *int          `yaml:"replicas"`
		Selector labelSelector `yaml:"selector"`
		Template podTemplate   `yaml:"template"`
	}
	decodeSpec(t, objs["Deployment"], &dep)
	require.Nil(t, dep.Replicas, "the autoscaler owns the replica count")
	c := dep.Template.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	require.Equal(t, map[string]int{"http": 9464, "slack": 3000}, ports)
	env := map[string]envVar{}
	var names []string
	for _, e := range c.Env {
		env[e.Name] = e
		names = append(names, e.Name)
	}
	require.Equal(t, "http", env["MNEMO_SLACK_MODE"].Value)
	require.Equal(t, "0.0.0.0:3000", env["MNEMO_SLACK_HTTP_ADDR"].Value)
	require.Equal(t, "0.0.0.0:9464", env["MNEMO_HTTP_ADDR"].Value)
	requireReadByMnemo(t, envRead(t), names, "the Deployment in http mode")
	require.NotContains(t, env, "SLACK_SIGNING_SECRET", "the signing secret comes from the Secret")

	// The signing secret is in the Secret the pods read.
	var secret struct {
		StringData map[string]string `yaml:"stringData"`
	}
	f, err := os.ReadFile(*renderedHTTP)
	require.NoError(t, err)
	for _, doc := range strings.Split(string(f), "\n---") {
		if strings.Contains(doc, "kind: Secret") {
			require.NoError(t, yaml.Unmarshal([]byte(doc), &secret))
		}
	}
	require.Contains(t, secret.StringData, "SLACK_SIGNING_SECRET")
	require.Equal(t, objs["Secret"].Metadata.Name, c.EnvFrom[0].SecretRef.Name)

	type svcSpec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
	var slackSvc, opsSvc svcSpec
	decodeSpec(t, objs["Service/slack"], &slackSvc)
	decodeSpec(t, objs["Service"], &opsSvc)
	require.True(t, selects(slackSvc.Selector, dep.Template.Metadata.Labels))
	require.Len(t, slackSvc.Ports, 1)
	require.Equal(t, "slack", slackSvc.Ports[0].TargetPort, "only Slack's port")
	require.Len(t, opsSvc.Ports, 1)
	require.Equal(t, "http", opsSvc.Ports[0].TargetPort, "health and metrics apart")

	var ing struct {
		Rules []struct {
			Host string `yaml:"host"`
			HTTP struct {
				Paths []struct {
					Path     string `yaml:"path"`
					PathType string `yaml:"pathType"`
					Backend  struct {
						Service struct {
							Name string `yaml:"name"`
							Port struct {
								Name string `yaml:"name"`
							} `yaml:"port"`
						} `yaml:"service"`
					} `yaml:"backend"`
				} `yaml:"paths"`
			} `yaml:"http"`
		} `yaml:"rules"`
	}
	decodeSpec(t, objs["Ingress"], &ing)
	require.Equal(t, "networking.k8s.io/v1", objs["Ingress"].APIVersion)
	require.Len(t, ing.Rules, 1)
	require.Equal(t, "mnemo.example.com", ing.Rules[0].Host)
	require.Len(t, ing.Rules[0].HTTP.Paths, 1, "nothing but /slack/ is exposed")
	p := ing.Rules[0].HTTP.Paths[0]
	require.Equal(t, "/slack/", p.Path)
	require.Equal(t, "Prefix", p.PathType)
	require.Equal(t, objs["Service/slack"].Metadata.Name, p.Backend.Service.Name)
	require.Equal(t, "slack", p.Backend.Service.Port.Name)

	var hpa struct {
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
	}
	decodeSpec(t, objs["HorizontalPodAutoscaler"], &hpa)
	require.Equal(t, "autoscaling/v2", objs["HorizontalPodAutoscaler"].APIVersion)
	require.Equal(t, "Deployment", hpa.ScaleTargetRef.Kind)
	require.Equal(t, objs["Deployment"].Metadata.Name, hpa.ScaleTargetRef.Name)
	var pdb struct {
		MinAvailable int `yaml:"minAvailable"`
	}
	decodeSpec(t, objs["PodDisruptionBudget"], &pdb)
	require.Less(t, pdb.MinAvailable, hpa.MinReplicas, "the budget must leave room to evict a pod")
	require.LessOrEqual(t, hpa.MinReplicas, hpa.MaxReplicas)
}
