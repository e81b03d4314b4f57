//go:build tools

// A tool the tests run, built from its module at the pinned release.
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"
