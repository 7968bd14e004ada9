"""Our client, driven through the `catbird-mls` CLI exactly as a user would."""
from __future__ import annotations

import json
import os
import subprocess

EXPORT_LABEL = "interop"


class CLIError(Exception):
    def __init__(self, args: list[str], status: int, stderr: str):
        super().__init__(f"catbird-mls {' '.join(args)} exited {status}: {stderr.strip()}")
        self.stderr = stderr


class SwiftMember:
    kind = "swift"

    def __init__(self, name: str, cli: str, work: str, server: str, plc: str):
        self.name = name
        self.cli = cli
        self.dir = os.path.join(work, name)
        self.server = server
        self.did = self._run("init", "--plc", plc, json_output=False).strip()

    def _run(self, *args: str, json_output: bool = True):
        argv = [self.cli, *args, "--dir", self.dir, "--server", self.server, "--quiet"]
        if json_output:
            argv.append("--json")
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise CLIError(list(args), done.returncode, done.stderr + done.stdout)
        return json.loads(done.stdout) if json_output else done.stdout

    def publish_key_packages(self, count: int) -> None:
        output = self._run("publish-key-packages", "--count", str(count))
        assert output["succeeded"] == count, output

    def create(self, invite: list[str], name: str) -> str:
        return self._run("create", "--name", name, *invite)["id"]

    def invite(self, convo: str, dids: list[str]) -> int:
        return int(self._run("invite", convo, *dids)["newEpoch"])

    def join(self, convo: str) -> int:
        return int(self._run("join", convo)["epoch"])

    def send(self, convo: str, text: str) -> None:
        self._run("send", convo, text)

    def read(self, convo: str) -> list[tuple[str, str]]:
        """(sender DID, text) of every application message decrypted since the last read."""
        entries = self._run("read", convo)
        return [(e["sender"], e["text"]) for e in entries if e["kind"] == "message"]

    def self_update(self, convo: str) -> int:
        return int(self._run("update", convo)["newEpoch"])

    def remove(self, convo: str, did: str) -> int:
        return int(self._run("remove", convo, did)["newEpoch"])

    def rejoin(self, convo: str) -> int:
        """An external commit from the service's GroupInfo (RFC 9420 §12.4.3.2), replacing our leaf."""
        return int(self._run("rejoin", convo)["epoch"])

    def leave(self, convo: str) -> None:
        self._run("leave", convo)

    def state(self, convo: str) -> tuple[int, bytes]:
        """(epoch, MLS-Exporter("interop", "", 32)) of the local group."""
        output = self._run("export-secret", "--label", EXPORT_LABEL, "--length", "32", convo)
        return int(output["epoch"]), bytes.fromhex(output["secret"])
