"""A real SMTP server for the club's mail tests (DESIGN.md, release 5: Python's aiosmtpd, never a
fake of our own code): STARTTLS required, with a certificate for `localhost` from a CA the test
makes (the club is given it with `--smtp-ca`). It keeps every message it accepted, can refuse
the first tries of chosen messages with a temporary error (451) and can hold one try open (as a
slow server does) so a test can kill the sender mid-send."""
from __future__ import annotations

import asyncio
import datetime
import email
import email.policy
import ipaddress
import os
import ssl
import tempfile
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from club_postgres import free_port


def make_ca_and_server_certificate(folder: str) -> tuple[str, str, str]:
    """(ca.pem, server.pem, server-key.pem) in `folder`: a CA and a `localhost` certificate it signed."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Gather mail test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
              .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=30))
              .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                          x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
              .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .sign(ca_key, hashes.SHA256()))
    paths = [os.path.join(folder, name) for name in ("ca.pem", "server.pem", "server-key.pem")]
    with open(paths[0], "wb") as handle:
        handle.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as handle:
        handle.write(server.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return paths[0], paths[1], paths[2]


class Received:
    """One accepted message: the envelope, the parsed message, and when it arrived (monotonic)."""

    def __init__(self, rcpt: list[str], raw: bytes, arrived: float):
        self.rcpt = rcpt
        self.raw = raw
        self.message = email.message_from_bytes(raw, policy=email.policy.default)
        self.arrived = arrived

    def header(self, name: str) -> str:
        return str(self.message[name] or "")

    @property
    def body(self) -> str:
        return self.message.get_content()


class MailServer:
    """aiosmtpd on 127.0.0.1 with STARTTLS required (`url`: `smtp://localhost:PORT`).

    `refuse_first(predicate, tries)`: a message whose Message-ID matches is refused (451) on its
    first `tries` tries. `hold_next(predicate)`: the next matching try is held open until
    `release()`, then refused (its client is normally gone by then)."""

    def __init__(self, login: tuple[str, str] | None = None):
        """`login`: (user, password) the server requires (AUTH offered only after STARTTLS)."""
        self._folder = tempfile.TemporaryDirectory(prefix="gather-mail-")
        self.ca_path, cert, key = make_ca_and_server_certificate(self._folder.name)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self.port = free_port()
        self._lock = threading.Lock()
        self.received: list[Received] = []
        self.tries: dict[str, int] = {}
        self._refuse = (lambda message_id: False, 0)
        self._hold = None
        self.holding = threading.Event()
        self._released = threading.Event()
        self.logins: list[str] = []
        extra = {}
        if login is not None:
            extra = dict(authenticator=self._authenticate(*login), auth_required=True, auth_require_tls=True)
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port, tls_context=context,
                                     require_starttls=True, server_hostname="localhost", **extra)

    @property
    def url(self) -> str:
        return f"smtp://localhost:{self.port}"

    def start(self) -> "MailServer":
        self.controller.start()
        return self

    def cleanup(self):
        self._released.set()
        try:
            self.controller.stop()
        finally:
            self._folder.cleanup()

    def _authenticate(self, user: str, password: str):
        def check(server, session, envelope, mechanism, auth_data):
            good = (isinstance(auth_data, LoginPassword) and auth_data.login == user.encode()
                    and auth_data.password == password.encode())
            with self._lock:
                self.logins.append(f"{mechanism}:{'ok' if good else 'refused'}")
            return AuthResult(success=good)
        return check

    def refuse_first(self, predicate, tries: int):
        self._refuse = (predicate, tries)

    def hold_next(self, predicate):
        self.holding.clear()
        self._released.clear()
        self._hold = predicate

    def release(self):
        self._released.set()

    # aiosmtpd's handler hook: every DATA of every connection.
    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message_id = str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"] or "")
        with self._lock:
            self.tries[message_id] = self.tries.get(message_id, 0) + 1
            count = self.tries[message_id]
            hold = self._hold is not None and self._hold(message_id)
            if hold:
                self._hold = None
        if hold:
            self.holding.set()
            deadline = time.monotonic() + 60
            while not self._released.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return "451 4.3.0 held, then refused"
        predicate, refused_tries = self._refuse
        if predicate(message_id) and count <= refused_tries:
            return "451 4.3.0 try again later"
        with self._lock:
            self.received.append(Received(list(envelope.rcpt_tos), raw, time.monotonic()))
        return "250 2.0.0 OK"

    def accepted(self, predicate=lambda received: True) -> list[Received]:
        with self._lock:
            return [item for item in self.received if predicate(item)]

    def wait_for(self, predicate, count: int, timeout: float) -> list[Received]:
        """The accepted messages matching `predicate` once there are `count` (or fails after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.accepted(predicate)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(found)} of {count} mails after {timeout} s; tries: {self.tries}")
            time.sleep(0.05)
