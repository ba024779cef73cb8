#!/usr/bin/env bash
# The package as npm would ship it: packs Stacks (package.json "files"), checks the tarball holds dist/,
# docs/, the README, the licence and package.json only, installs it into an empty folder (dependencies
# from the npm registry, nothing else), then type-checks the embedding example of docs/embedding.md
# against the installed package's types and runs it. Needs node_modules (tsc, @types/node) and `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/stacks-pack-XXXXXX")
trap 'rm -rf "$work"' EXIT

tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
listed=$(tar -tzf "$tarball" | sed 's#^package/##')
unexpected=$(grep -Ev '^(dist/|docs/|README\.md$|LICENSE$|package\.json$)' <<<"$listed" || true)
if [ -n "$unexpected" ]; then { echo "the package ships files outside dist/ and docs/:"; head -n 20 <<<"$unexpected"; } >&2; exit 1; fi
for needed in dist/index.js dist/index.d.ts README.md LICENSE docs/embedding.md; do
  grep -qx "$needed" <<<"$listed" || { echo "the package lacks $needed" >&2; exit 1; }
done

mkdir "$work/app" && cd "$work/app"
printf '{ "name": "embeds-stacks", "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund "$tarball" > install.log 2>&1 || { cat install.log >&2; exit 1; }

node "$root/scripts/embedding-example.mjs" > example.ts
node "$root/node_modules/typescript/bin/tsc" --strict --target es2022 --module nodenext --moduleResolution nodenext \
  --types node --typeRoots "$root/node_modules/@types" --outDir out example.ts
expected=$(sed -n 's#.*// \(.*\)$#\1#p' example.ts | tail -n 1)   # the example's last comment says what it prints
actual=$(node out/example.js)
[ "$actual" = "$expected" ] || { echo "the embedding example printed '$actual', not '$expected'" >&2; exit 1; }
echo "package: $(wc -l <<<"$listed") files; docs/embedding.md's example, installed from the tarball, printed: $actual"
