//go:build tools

// The test control plane's API server, built from its module at the pinned release.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
