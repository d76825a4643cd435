"""`gather serve` and `gather relay` spell their certificate options alike (`--tls-cert`,
`--tls-key`); `serve`'s first names (`--cert`, `--key`) still work and stay out of the help."""
import os
import ssl
import subprocess

from gatherlib import BINARY, GatherServer


def test_serve_takes_its_own_certificate_under_both_spellings_and_helps_with_the_shared_one():
    with GatherServer() as made:  # the local CA makes a certificate and key to hand back
        pass_through = (os.path.join(made.cert_dir, "server.pem"), os.path.join(made.cert_dir, "server-key.pem"))
        made.stop()
        for names in (("--tls-cert", "--tls-key"), ("--cert", "--key")):
            own = GatherServer(extra_args=(names[0], pass_through[0], names[1], pass_through[1]),
                               fresh_certificates=True)  # an empty certificate folder, as on a new machine
            try:
                own.start()
                context = ssl.create_default_context(cafile=made.ca_path)
                own.ssl_context = lambda context=context: context
                assert own.health()["status"] == "ok", names
                assert not os.path.exists(own.ca_path), "with its own certificate the server makes no CA"
            finally:
                own.cleanup()
    for command in ("serve", "relay"):
        shown = subprocess.run([BINARY, command, "--help"], capture_output=True, text=True, timeout=30).stdout
        assert "--tls-cert" in shown and "--tls-key" in shown, command
        assert "--cert <" not in shown and "--key <" not in shown, command
