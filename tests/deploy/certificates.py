"""A throwaway certificate authority and a server certificate it signs, made with `openssl`, for
the tests that mount a CA from a Secret the way the chart does."""

from __future__ import annotations

import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerCertificate:
    ca: Path
    certificate: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certificate, self.key)
        return context


def _openssl(*args: str | Path, cwd: Path) -> None:
    subprocess.run(["openssl", *map(str, args)], cwd=cwd, check=True, capture_output=True, timeout=30)


def issue(directory: Path, address: str = "127.0.0.1") -> ServerCertificate:
    """A CA, and a certificate for `address` (an IP address) that it signs, in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=Test CA",
             "-keyout", "ca.key", "-out", "ca.crt", cwd=directory)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={address}",
             "-keyout", "server.key", "-out", "server.csr", cwd=directory)  # fmt: skip
    (directory / "san.ext").write_text(f"subjectAltName = IP:{address}\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "1", "-extfile", "san.ext", "-out", "server.crt", cwd=directory)  # fmt: skip
    return ServerCertificate(directory / "ca.crt", directory / "server.crt", directory / "server.key")
