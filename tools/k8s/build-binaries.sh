#!/usr/bin/env bash
# Builds (or reuses) the control-plane binaries the chart tests run against: etcd, kube-apiserver,
# kube-controller-manager, kubectl and helm, from the Go module proxy (recipe:
# docs/adr or /work/shared/recipes/kubernetes-api-server.md). Cached under a directory named after the
# versions, outside the repository, so a warm run only checks that the files are there.
# Prints the bin directory on stdout (last line).
set -euo pipefail

K8S_VERSION="${WDS_K8S_VERSION:-v1.37.2}"
ETCD_VERSION="${WDS_ETCD_VERSION:-v3.7.0}"
HELM_VERSION="${WDS_HELM_VERSION:-v3.22.0}"
CACHE_ROOT="${WDS_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wds}"
DIR="$CACHE_ROOT/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-helm-$HELM_VERSION"
BIN="$DIR/bin"
TOOLS=(etcd kube-apiserver kube-controller-manager kubectl helm)

have_all() { for t in "${TOOLS[@]}"; do [[ -x "$BIN/$t" ]] || return 1; done; }

if have_all; then echo "$BIN"; exit 0; fi

command -v go >/dev/null || { echo "go is required to build the control plane (Go module proxy)" >&2; exit 1; }
mkdir -p "$BIN" "$DIR/kbuild"
exec 9>"$DIR/.lock"
flock 9
if have_all; then echo "$BIN"; exit 0; fi

MINOR="${K8S_VERSION#v1.}"; MINOR="${MINOR%%.*}"
PATCH="${K8S_VERSION##*.}"
STAGING="v0.$MINOR.$PATCH"
GO_LINE="$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')"

cd "$DIR/kbuild"
{
  printf 'module kbuild\n\ngo %s.0\n\ngodebug default=go%s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$GO_LINE" "$GO_LINE" "$K8S_VERSION"
  for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
    cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api \
    cri-client cri-streaming csi-translation-lib dynamic-resource-allocation endpointslice externaljwt \
    kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics \
    mount-utils pod-security-admission sample-apiserver streaming; do
    printf '\tk8s.io/%s => k8s.io/%s %s\n' "$m" "$m" "$STAGING"
  done
  printf ')\n'
} > go.mod

export GOFLAGS="-p=${WDS_K8S_BUILD_JOBS:-2} -buildvcs=false"
export GOTOOLCHAIN=local
log() { echo "[k8s-build $(date -u +%H:%M:%S)] $*" >&2; }

log "resolving modules ($K8S_VERSION, etcd $ETCD_VERSION)"
go get "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION" \
  "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2

VP=k8s.io/component-base/version; CV=k8s.io/client-go/pkg/version
LD="-s -w"
for p in "$VP" "$CV"; do
  LD="$LD -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
done

build() { # name, package, ldflags
  [[ -x "$BIN/$1" ]] && return 0
  log "building $1"
  local t0=$SECONDS
  go build -ldflags "$3" -o "$BIN/$1.tmp" "$2" >&2
  mv "$BIN/$1.tmp" "$BIN/$1"
  log "built $1 in $((SECONDS - t0)) s"
}
build etcd go.etcd.io/etcd/server/v3 "-s -w"
build kubectl k8s.io/kubernetes/cmd/kubectl "$LD"
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$LD"
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$LD"

if [[ ! -x "$BIN/helm" ]]; then
  log "building helm $HELM_VERSION"
  t0=$SECONDS
  # Without the Kubernetes version flags (as helm's Makefile sets them) `helm template` and `helm lint`
  # assume Kubernetes v1.20 and refuse charts with a newer kubeVersion.
  HL="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for p in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    HL="$HL -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$MINOR"
  done
  GOBIN="$BIN" go install -ldflags "$HL" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
  log "built helm in $((SECONDS - t0)) s"
fi
have_all
echo "$BIN"
