#!/usr/bin/env bash
# Installs pyroomacoustics (PyPI, pinned), the reference our room model is tested against
# (scripts/room_reference.py, RoomModelTests), in a Python environment of its own under .build/.
set -euo pipefail
cd "$(dirname "$0")/.."
version="pyroomacoustics 0.8.3, numpy 1.26.4, scipy 1.15.3"
scripts/setup.sh python3-venv
target=.build/pyroomacoustics
if grep -qsF "$version" "$target/VERSION"; then exit 0; fi
[ -x "$target/bin/python" ] || python3 -m venv "$target"
"$target/bin/pip" install -q pyroomacoustics==0.8.3 numpy==1.26.4 scipy==1.15.3
"$target/bin/python" -c "import pyroomacoustics"
echo "$version" > "$target/VERSION"
echo "pyroomacoustics: installed ($version) in $target" >&2
