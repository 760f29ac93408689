#!/bin/sh
# Builds the viewer's third-party asset: ELK (elkjs, EPL-2.0) copied from node_modules into
# src/symnb/widgets/static/, with its license next to it. Reproducible: the version is
# pinned in package.json and package-lock.json (`npm ci` installs exactly it).
#   cd js && npm ci && npm run build
set -eu
here=$(cd "$(dirname "$0")" && pwd)
static="$here/../src/symnb/widgets/static"
[ -d "$here/node_modules/elkjs" ] || (cd "$here" && npm ci --no-audit --no-fund)
cp "$here/node_modules/elkjs/lib/elk-worker.min.js" "$static/elk-worker.min.js"
cp "$here/node_modules/elkjs/LICENSE.md" "$static/ELK-LICENSE.md"
version=$(node -p "require('$here/node_modules/elkjs/package.json').version")
printf 'elkjs %s (https://github.com/kieler/elkjs), lib/elk-worker.min.js, EPL-2.0: see ELK-LICENSE.md\n' "$version" > "$static/ELK-VERSION.txt"
echo "copied elkjs $version into $static"
