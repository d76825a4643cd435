"""Issue 2: the live path over real TLS, against the real binary."""
import datetime
import json
import signal
import time

import pytest
import websockets
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtendedKeyUsageOID

import rawws
from gatherlib import GatherServer, Live, run


@pytest.fixture(scope="module")
def server():
    with GatherServer() as running:
        yield running


def test_pages_load_over_tls_verified_by_the_generated_ca(server):
    for path in ("/", "/organiser.html", "/scoreboard.html"):
        status, headers, body = server.get(path)
        assert status == 200, path
        assert headers["content-type"].startswith("text/html"), path
        assert b"<html" in body.lower()
        assert "default-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert "strict-transport-security" not in headers


def test_unknown_paths_and_traversal_are_404(server):
    assert server.get("/nope.html")[0] == 404
    assert server.get("/../Package.swift")[0] in (400, 403, 404)
    assert server.get("/%2e%2e/Package.swift")[0] in (400, 403, 404)


def test_healthz_reports_version_and_connections(server):
    # Without --nats the venue stream is off and nothing was published; the venue's key and
    # this run's epoch are there all the same (a relay is configured from them).
    health = server.health()
    venue = {key: health.pop(key) for key in ("venueKey", "epoch", "epochStartedAt")}
    assert len(venue["venueKey"]) == 44 and 8 <= len(venue["epoch"]) <= 64 and venue["epochStartedAt"] > 0
    assert health == {"status": "ok", "version": 0, "connections": 0, "nats": "off", "stream": None,
                      "publishedVersion": None, "lagVersions": None}


def test_ca_is_offered_and_is_the_ca_the_client_trusts(server):
    status, headers, body = server.get("/ca.pem")
    assert status == 200
    assert body == open(server.ca_path, "rb").read()
    assert x509.load_pem_x509_certificate(body).extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_every_connection_gets_welcome_then_snapshot(server):
    async def scenario():
        live = await Live.connect(server)
        welcome = live.messages[0]
        assert welcome["role"] == "spectator" and welcome["protocol"] == "gather.v1"
        assert isinstance(welcome["serverTime"], int)
        assert live.ws.subprotocol == "gather.v1"
        snapshot = await live.next()
        assert snapshot["type"] == "snapshot"
        assert snapshot["version"] == 0
        assert snapshot["state"] == {"players": [], "gather": None, "history": [], "tournament": None,
                                     "pitches": [{"id": 1, "name": "Pitch 1", "gather": None, "lastResult": None}]}
        await live.close()
    run(scenario())


def test_a_foreign_origin_is_refused_with_403(server):
    async def scenario():
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            await Live.connect(server, origin="https://evil.example")
        assert refused.value.response.status_code == 403
        same = await Live.connect(server, origin=f"https://127.0.0.1:{server.port}")
        await same.close()
    run(scenario())


def test_a_handshake_without_gather_v1_is_refused(server):
    status, _, sock, _ = rawws.handshake(server, subprotocol=None)
    sock.close()
    assert " 101 " not in status
    status, _, sock, _ = rawws.handshake(server, subprotocol="chat")
    sock.close()
    assert " 101 " not in status


@pytest.mark.parametrize("opcode,payload,code", [
    (0x1, b"x" * (70 * 1024), 1009),           # over 64 KiB
    (0x2, b"\x00\x01", 1003),                  # binary
    (0x1, b'{"type":"\xff\xfe"}', 1007),       # invalid UTF-8
])
def test_frame_limits_close_with_the_right_code(server, opcode, payload, code):
    status, _, sock, rest = rawws.handshake(server)
    assert " 101 " in status
    sock.sendall(rawws.frame(opcode, payload))
    assert rawws.read_close_code(sock, rest) == code
    sock.close()


def test_a_message_reassembled_from_fragments_over_the_cap_is_1009(server):
    status, _, sock, rest = rawws.handshake(server)
    assert " 101 " in status
    sock.sendall(rawws.frame(0x1, b"[" * 40_000, fin=False))
    sock.sendall(rawws.frame(0x0, b"[" * 40_000, fin=True))
    assert rawws.read_close_code(sock, rest) == 1009
    sock.close()


def test_sigint_closes_every_connection_with_1001_and_exits_0():
    with GatherServer() as server:
        async def scenario():
            clients = [await Live.connect(server) for _ in range(3)]
            process = server.process
            process.send_signal(signal.SIGINT)
            for live in clients:
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    while True:
                        await live.next(timeout=10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
            return process
        process = run(scenario())
        assert process.wait(10) == 0


def test_the_certificate_meets_apples_rules(server):
    leaf = x509.load_pem_x509_certificate(open(f"{server.cert_dir}/server.pem", "rb").read())
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    dns = names.get_values_for_type(x509.DNSName)
    ips = [str(ip) for ip in names.get_values_for_type(x509.IPAddress)]
    assert "localhost" in dns and "127.0.0.1" in ips and "::1" in ips
    assert any(name.endswith(".local") for name in dns)
    assert ExtendedKeyUsageOID.SERVER_AUTH in leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    lifetime = leaf.not_valid_after_utc - leaf.not_valid_before_utc
    assert lifetime <= datetime.timedelta(days=825)
    assert isinstance(leaf.signature_hash_algorithm, hashes.SHA256)


def test_a_restart_reuses_the_ca():
    first = GatherServer()
    try:
        first.start()
        ca_before = open(first.ca_path, "rb").read()
        assert first.stop() == 0
        second = GatherServer(data_dir=first.data_dir, cert_dir=first.cert_dir, port=first.port)
        second.start()
        try:
            assert open(second.ca_path, "rb").read() == ca_before
            assert second.health()["status"] == "ok"  # verified against the same CA
        finally:
            second.stop()
    finally:
        first.cleanup()


def test_bad_options_fail_with_one_clear_line():
    import subprocess
    from gatherlib import BINARY
    for args, words in ((["--port", "70000"], "--port"), (["--cert", "/x.pem"], "--key"),
                        (["--public", "/definitely/missing"], "--public")):
        result = subprocess.run([BINARY, "serve", *args], capture_output=True, text=True, timeout=30)
        assert result.returncode != 0
        assert words in result.stderr


def test_a_busy_port_fails_with_a_clear_line():
    with GatherServer() as running:
        clash = GatherServer(port=running.port)
        try:
            with pytest.raises(RuntimeError):
                clash.start(timeout=15)
            time.sleep(0.5)  # let the reader thread drain standard error
            assert any(line.startswith("gather:") and str(running.port) in line for line in clash.errors), clash.errors
        finally:
            clash.cleanup()
