#!/bin/sh
# Pins the test API server's module to k8s.io/kubernetes at $1 (e.g. v1.36.3):
# its go.mod replaces the staging modules with ./staging, so each is pinned to v0.N.M here.
set -eu
version=$1
staging=v0.${version#v1.}
dir=$(dirname "$0")/../../tools/go/kube-apiserver
mod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
{
  printf 'module rigging.test/kube-apiserver\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$version"
  sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => \./staging/.*#\t\1 => \1 '"$staging"'#p' "$mod"
  printf ')\n'
} > "$dir/go.mod"
cd "$dir" && go mod tidy
