"""Third-party MQTT 5.0 clients on the service's MQTT listener: Eclipse Paho (paho-mqtt, Python) and
the mosquitto command line clients (mosquitto_pub / mosquitto_sub, Debian `mosquitto-clients`).
Each connection authenticates as the Relay protocol asks (docs/mqtt.md): User Name = the DID,
Password = a fresh service-auth token for blue.catbird.mls.mqttConnect.
"""
from __future__ import annotations

import os
import queue
import subprocess
import tempfile
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from atproto import AtprotoIdentity

CONNECT_NSID = "blue.catbird.mls.mqttConnect"
SERVICE_DID = "did:web:localhost"


def client_id() -> str:
    return os.urandom(16).hex()


def cbor_byte_strings(items: list[bytes]) -> bytes:
    """RFC 8949: a definite-length array of byte strings (Relay's KeyPackage bundle), written here."""
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | info]) + n.to_bytes(size, "big")
        raise ValueError("too long")
    return head(4, len(items)) + b"".join(head(2, len(item)) + item for item in items)


def cbor_decode_strings(data: bytes) -> list:
    """The inverse, for arrays of byte or text strings (what the service sends on relay/k and relay/u)."""
    def read_head(offset: int) -> tuple[int, int, int]:
        initial = data[offset]
        major, info = initial >> 5, initial & 0x1F
        offset += 1
        if info < 24:
            return major, info, offset
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
        return major, int.from_bytes(data[offset:offset + size], "big"), offset + size
    major, count, offset = read_head(0)
    assert major == 4, "not a CBOR array"
    out = []
    for _ in range(count):
        major, length, offset = read_head(offset)
        item = data[offset:offset + length]
        out.append(item.decode() if major == 3 else item)
        offset += length
    assert offset == len(data), "trailing bytes"
    return out


class Paho:
    """One paho-mqtt MQTT v5 connection, driven synchronously: every call waits for its answer."""

    def __init__(self, identity: AtprotoIdentity, host: str, port: int, cid: str | None = None, clean_start: bool = True,
                 session_expiry: int = 0, password: str | None = None):
        self.cid = cid or client_id()
        self.messages: queue.Queue = queue.Queue()
        self.acks: dict[int, tuple[int, str | None]] = {}
        self.subacks: dict[int, list[int]] = {}
        self.connack: tuple[int, str | None] | None = None
        self.disconnect_code: int | None = None
        self.cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.cid, protocol=mqtt.MQTTv5,
                                  reconnect_on_failure=False)
        self.client.username_pw_set(identity.did, password if password is not None else identity.token(SERVICE_DID, CONNECT_NSID))
        self.client.on_connect = self._on_connect
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.on_disconnect = self._on_disconnect
        properties = Properties(PacketTypes.CONNECT)
        if session_expiry:
            properties.SessionExpiryInterval = session_expiry
        self.client.connect(host, port, clean_start=clean_start, properties=properties)
        self.client.loop_start()
        self._wait(lambda: self.connack is not None or self.disconnect_code is not None, "CONNACK")

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        with self.cond:
            self.session_present = bool(flags.session_present)
            self.connack = (reason_code.value, getattr(properties, "ReasonString", None))
            self.cond.notify_all()

    def _on_publish(self, client, userdata, mid, reason_code, properties):
        with self.cond:
            self.acks[mid] = (reason_code.value, getattr(properties, "ReasonString", None))
            self.cond.notify_all()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties):
        with self.cond:
            self.subacks[mid] = [code.value for code in reason_codes]
            self.cond.notify_all()

    def _on_message(self, client, userdata, message):
        self.messages.put(message)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        with self.cond:
            self.disconnect_code = reason_code.value
            self.cond.notify_all()

    def _wait(self, condition, what: str, timeout: float = 10) -> None:
        with self.cond:
            if not self.cond.wait_for(condition, timeout):
                raise AssertionError(f"paho: no {what} within {timeout} s")

    @property
    def connack_code(self) -> int:
        return self.connack[0] if self.connack else -1

    def publish(self, topic: str, payload: bytes) -> tuple[int, str | None]:
        """QoS 1; the PUBACK's Reason Code and Reason String."""
        info = self.client.publish(topic, payload, qos=1)
        self._wait(lambda: info.mid in self.acks, f"PUBACK for {topic}")
        return self.acks.pop(info.mid)

    def subscribe(self, topic: str, no_local: bool = False) -> int:
        _, mid = self.client.subscribe(topic, options=mqtt.SubscribeOptions(qos=1, noLocal=no_local))
        self._wait(lambda: mid in self.subacks, f"SUBACK for {topic}")
        return self.subacks.pop(mid)[0]

    def next(self, topic: str, timeout: float = 10):
        """The next message on `topic` (others are kept for later), or None."""
        deadline = time.monotonic() + timeout
        skipped = []
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                try:
                    message = self.messages.get(timeout=left)
                except queue.Empty:
                    return None
                if message.topic == topic:
                    return message
                skipped.append(message)
        finally:
            for message in skipped:
                self.messages.put(message)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Mosquitto:
    """The mosquitto command line clients, MQTT v5, one process per call (as a shell user runs them)."""

    def __init__(self, identity: AtprotoIdentity, host: str, port: int, cid: str | None = None):
        self.identity = identity
        self.host = host
        self.port = str(port)
        self.cid = cid or client_id()

    def _common(self, cid: str | None = None) -> list[str]:
        return ["-V", "5", "-h", self.host, "-p", self.port, "-i", cid or self.cid, "-u", self.identity.did,
                "-P", self.identity.token(SERVICE_DID, CONNECT_NSID), "-q", "1"]

    def publish(self, topic: str, payload: bytes, cid: str | None = None) -> subprocess.CompletedProcess:
        """mosquitto_pub (Clean Start = 1: with the subscriber's client_id it would end its Session;
        `cid` names another client of the same DID)."""
        with tempfile.NamedTemporaryFile() as file:
            file.write(payload)
            file.flush()
            return subprocess.run(["mosquitto_pub", *self._common(cid), "-t", topic, "-f", file.name],
                                  capture_output=True, text=True, timeout=30)

    def subscribe(self, topic: str, count: int | None = None, wait: float = 10, persistent: bool = False,
                  cid: str | None = None) -> tuple[list[bytes], subprocess.CompletedProcess]:
        """Runs mosquitto_sub until `count` messages (or `wait` seconds); the payloads, printed as hex.
        `persistent`: Clean Start = 0 and a Session Expiry Interval (-c -x 300)."""
        command = ["mosquitto_sub", *self._common(cid), "-t", topic, "-F", "%x", "-W", str(int(wait))]
        if count is not None:
            command += ["-C", str(count)]
        if persistent:
            command += ["-c", "-x", "300"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=wait + 20)
        return [bytes.fromhex(line) for line in result.stdout.split()], result

    def start_subscriber(self, topic: str, wait: float, persistent: bool = False) -> subprocess.Popen:
        """A mosquitto_sub in the background for `wait` seconds; read its output when it ends."""
        command = ["mosquitto_sub", *self._common(), "-t", topic, "-F", "%x", "-W", str(int(wait))]
        if persistent:
            command += ["-c", "-x", "300"]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
