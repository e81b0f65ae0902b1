// crd-check decodes the Prometheus Operator resources of rendered manifests into the operator's
// own Go types (github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1),
// strictly: a field the type does not have, or a value of the wrong type, fails. Their schemas are
// not in kubernetes-validate (it holds Kubernetes' own kinds only), so scripts/check-chart.sh runs
// this for them and kubernetes-validate for everything else.
//
//	crd-check FILE...   prints one line per resource checked; exit 1 when any fails
package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"
)

// helm template separates documents with a line of its own
var documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// the kinds this chart renders, each decoded into its operator type
func target(kind string) (any, bool) {
	switch kind {
	case "ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}, true
	case "PrometheusRule":
		return &monitoringv1.PrometheusRule{}, true
	}
	return nil, false
}

func check(file string, doc []byte) (string, error) {
	var h header
	if err := yaml.Unmarshal(doc, &h); err != nil {
		return "", err
	}
	if !strings.HasPrefix(h.APIVersion, monitoringv1.SchemeGroupVersion.Group+"/") {
		return "", nil
	}
	what := fmt.Sprintf("%s: %s/%s", file, h.Kind, h.Metadata.Name)
	if h.APIVersion != monitoringv1.SchemeGroupVersion.String() {
		return what, fmt.Errorf("apiVersion %s, expected %s", h.APIVersion, monitoringv1.SchemeGroupVersion)
	}
	into, known := target(h.Kind)
	if !known {
		return what, fmt.Errorf("no Go type for kind %s in crd-check", h.Kind)
	}
	return what, yaml.UnmarshalStrict(doc, into)
}

// the version of the operator's types go.mod pins, as built in
func monitoringVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

func main() {
	version := monitoringVersion()
	failed := false
	for _, file := range os.Args[1:] {
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, doc := range documentSeparator.Split(string(text), -1) {
			what, err := check(file, []byte(doc))
			switch {
			case err != nil && what == "":
				fmt.Printf("ERROR %s: %v\n", file, err)
				failed = true
			case err != nil:
				fmt.Printf("ERROR %s: %v\n", what, err)
				failed = true
			case what != "":
				fmt.Printf("ok    %s (prometheus-operator %s types, strict)\n", what, version)
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}
