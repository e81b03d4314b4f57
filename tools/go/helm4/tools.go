//go:build tools

// A tool the tests run, built from its module at the pinned release.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
