#!/usr/bin/env python3
"""Developer check (not run by `make test`): lexicon/chat/*.json against upstream's lexicons.

    scripts/chat-lexicons-vs-upstream.py UPSTREAM_DIR

UPSTREAM_DIR holds upstream's `blue.catbird.chat.*.json` (PetrelCatbird's lexicons/blue/catbird/chat/).
The wire depends on every NSID, def, type, ref, constraint, parameter, body and error name, so with
descriptions stripped from both sides each of our files must equal upstream's exactly, key order
included. Descriptions are ours: every method has one, and none repeats a run of upstream's prose.
Upstream's authFull.json (a permission set, no method) has no counterpart here. Exits 1 on any finding.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "lexicon", "chat")
PREFIX = "blue.catbird.chat."
SHARED_WORDS = 7  # a run of this many words in common counts as copied prose


def strip(node, parent=None):
    """The document without its descriptions; a property named `description` is kept."""
    if isinstance(node, dict):
        return {k: strip(v, k) for k, v in node.items() if not (k == "description" and parent != "properties")}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def descriptions(node, parent=None):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "description" and parent != "properties" and isinstance(v, str):
                yield v
            else:
                yield from descriptions(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from descriptions(v)


def differences(a, b, path="$"):
    """Where two JSON values differ, key order included."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            yield f"{path}: keys {list(a)} vs {list(b)}"
        for k in a.keys() & b.keys():
            yield from differences(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]")
    elif type(a) is not type(b) or a != b:
        yield f"{path}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"


def word_runs(text):
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {" ".join(words[i:i + SHARED_WORDS]) for i in range(len(words) - SHARED_WORDS + 1)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    upstream_dir = sys.argv[1]
    findings = []
    upstream = {}
    for file in sorted(os.listdir(upstream_dir)):
        if file.startswith(PREFIX) and file.endswith(".json"):
            name = file[len(PREFIX):-len(".json")]
            if name != "authFull":
                with open(os.path.join(upstream_dir, file)) as f:
                    upstream[name] = json.load(f)
    ours_names = {f[:-len(".json")] for f in os.listdir(OURS) if f.endswith(".json")}
    for name in sorted(ours_names - upstream.keys()):
        findings.append(f"{name}.json: no upstream counterpart")
    for name in sorted(upstream.keys() - ours_names):
        findings.append(f"{name}.json: missing")

    upstream_runs = set()
    for doc in upstream.values():
        for text in descriptions(doc):
            upstream_runs |= word_runs(text)

    defs_count = 0
    for name in sorted(upstream.keys() & ours_names):
        with open(os.path.join(OURS, name + ".json")) as f:
            ours = json.load(f)
        if ours.get("id") != PREFIX + name:
            findings.append(f"{name}.json: id {ours.get('id')!r}")
        for d in sorted(differences(strip(ours), strip(upstream[name]))):
            findings.append(f"{name}.json: {d}")
        if name != "defs" and not ours.get("description"):
            findings.append(f"{name}.json: no description")
        for text in descriptions(ours):
            if (shared := word_runs(text) & upstream_runs):
                findings.append(f"{name}.json: description repeats upstream's words: {sorted(shared)[0]!r}")
        if name == "defs":
            defs_count = len(ours["defs"])

    for finding in findings:
        print("chat lexicons:", finding)
    methods = len(upstream.keys() & ours_names) - ("defs" in ours_names)
    print(f"chat lexicons: {methods} methods and {defs_count} defs compared with upstream; {len(findings)} findings")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
