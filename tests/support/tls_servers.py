"""Real servers that speak only TLS, for the tests of the services' TLS settings: a CA and
certificates made with `openssl`, a throwaway PostgreSQL cluster that refuses plain connections,
and a `redis-server` with TLS alone.

    certificates = make_certificates(directory)
    with TlsPostgres.started(certificates) as postgres, TlsRedis.started(certificates) as redis:
        postgres.url(sslmode="verify-full", sslrootcert=str(certificates.ca))

or, in a test package whose conftest imports them, the fixtures `certificates`, `tls_postgres` and
`tls_redis`, one of each per test module.

Every server listens on 127.0.0.1 only and its certificate names that address alone, so a client
that reaches it as `localhost` meets a host-name mismatch.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from printcloud.devstack.ports import free_port, port_answers
from printcloud.devstack.processes import dies_with_parent

# The database whose pg_hba.conf line asks for a client certificate (its common name is the user).
CLIENT_CERTIFICATE_DATABASE = "certificate_login"
USER = "postgres"
_CA_EXTENSIONS = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n"
_LEAF_EXTENSIONS = (
    "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
    "authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n"
)


@dataclass(frozen=True)
class Certificates:
    ca: Path
    # An unrelated CA: what a deployment that mounted the wrong Secret would trust.
    wrong_ca: Path
    server_certificate: Path
    server_key: Path
    # Signed by `ca`, common name `postgres`.
    client_certificate: Path
    client_key: Path


def _openssl(*arguments: str, cwd: Path) -> None:
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True, timeout=30)


def _key_and_request(name: str, subject: str, cwd: Path) -> None:
    _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=cwd)  # fmt: skip


def _self_signed_ca(name: str, subject: str, cwd: Path) -> None:
    (cwd / "ca.ext").write_text(_CA_EXTENSIONS)
    _key_and_request(name, subject, cwd)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-key", f"{name}.key", "-days", "2",
             "-extfile", "ca.ext", "-out", f"{name}.crt", cwd=cwd)  # fmt: skip


def _signed(name: str, subject: str, extensions: str, cwd: Path) -> None:
    (cwd / f"{name}.ext").write_text(_LEAF_EXTENSIONS + extensions)
    _key_and_request(name, subject, cwd)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=cwd)  # fmt: skip


def make_certificates(directory: Path) -> Certificates:
    """A CA, a server certificate for IP 127.0.0.1 and a client certificate it signed, and a
    second CA that signed nothing of these."""
    directory.mkdir(parents=True, exist_ok=True)
    _self_signed_ca("ca", "/CN=PrintCloud test CA", directory)
    _self_signed_ca("wrong-ca", "/CN=Some other CA", directory)
    _signed("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n", directory)
    _signed("client", f"/CN={USER}", "extendedKeyUsage=clientAuth\n", directory)
    for key in directory.glob("*.key"):
        key.chmod(0o600)
    return Certificates(
        ca=directory / "ca.crt",
        wrong_ca=directory / "wrong-ca.crt",
        server_certificate=directory / "server.crt",
        server_key=directory / "server.key",
        client_certificate=directory / "client.crt",
        client_key=directory / "client.key",
    )


def _postgres_binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(Path(path).parent.name))
    if not found:
        raise RuntimeError("PostgreSQL's server binaries are needed (Debian: postgresql): none in /usr/lib/postgresql")
    return Path(found[-1])


@dataclass
class TlsPostgres:
    """A PostgreSQL cluster of its own on 127.0.0.1: `hostssl ... trust`, `hostnossl ... reject`,
    and a database that asks for a client certificate. The server dies with the test process,
    even killed (parent-death signal), and its directory goes with it on a clean stop."""

    directory: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @classmethod
    @contextlib.contextmanager
    def started(cls, certificates: Certificates, timeout: float = 60.0) -> Iterator[TlsPostgres]:
        # Not under pytest's temporary directories: the server runs as `postgres`, which may not
        # enter them.
        directory = Path(tempfile.mkdtemp(prefix="printcloud-tls-postgres-"))
        server = cls(directory, free_port())
        try:
            server._start(certificates, timeout)
            yield server
        finally:
            server._stop()
            shutil.rmtree(directory, ignore_errors=True)

    @property
    def _data(self) -> Path:
        return self.directory / "data"

    def url(self, database: str = "postgres", host: str = "127.0.0.1", **parameters: str) -> str:
        query = f"?{urlencode(parameters, quote_via=quote, safe='/')}" if parameters else ""
        return f"postgresql://{USER}@{host}:{self.port}/{database}{query}"

    def _as_postgres(self, command: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return command
        return ["runuser", "-u", USER, "--", *command]

    def _start(self, certificates: Certificates, timeout: float) -> None:
        bin_dir = _postgres_binaries()
        for source, name in ((certificates.server_certificate, "server.crt"), (certificates.server_key, "server.key"),
                             (certificates.ca, "ca.crt")):  # fmt: skip
            shutil.copy(source, self.directory / name)
        if os.geteuid() == 0:
            shutil.chown(self.directory, USER)
            for path in self.directory.iterdir():
                shutil.chown(path, USER)
        initdb = [str(bin_dir / "initdb"), "-D", str(self._data), "-U", USER, "-A", "trust", "--no-sync"]
        subprocess.run(self._as_postgres(initdb), check=True, capture_output=True, timeout=timeout)
        (self._data / "postgresql.auto.conf").write_text(
            f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
            f"unix_socket_directories = '{self.directory}'\nmax_connections = 200\nfsync = off\n"
            f"ssl = on\nssl_cert_file = '{self.directory / 'server.crt'}'\n"
            f"ssl_key_file = '{self.directory / 'server.key'}'\nssl_ca_file = '{self.directory / 'ca.crt'}'\n"
        )
        (self._data / "pg_hba.conf").write_text(
            f"hostssl {CLIENT_CERTIFICATE_DATABASE} all 127.0.0.1/32 cert\n"
            "hostssl all all 127.0.0.1/32 trust\n"
            "hostnossl all all 0.0.0.0/0 reject\n"
            "local all all trust\n"
        )
        log = (self.directory / "server.log").open("ab")
        # `runuser` would stay between the test and the server, and not pass the signal on. SIGINT
        # is PostgreSQL's fast shutdown: it does not wait for clients to leave.
        as_postgres = ["--reuid", USER, "--regid", USER, "--clear-groups"] if os.geteuid() == 0 else []
        command = ["setpriv", *as_postgres, "--pdeathsig", "INT", str(bin_dir / "postgres"), "-D", str(self._data)]
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        socket_options = ["-h", str(self.directory), "-p", str(self.port), "-U", USER]
        deadline = time.monotonic() + timeout
        while subprocess.run([str(bin_dir / "pg_isready"), *socket_options], capture_output=True).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL with TLS did not start: see {self.directory / 'server.log'}")
            time.sleep(0.05)
        createdb = [str(bin_dir / "createdb"), *socket_options, CLIENT_CERTIFICATE_DATABASE]
        subprocess.run(createdb, check=True, capture_output=True, timeout=timeout)

    def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # PostgreSQL's immediate shutdown
            self.process.wait(timeout=30)


@dataclass
class TlsRedis:
    """A private `redis-server` that speaks TLS only and keeps nothing on disk."""

    port: int
    process: subprocess.Popen[bytes]

    @classmethod
    @contextlib.contextmanager
    def started(cls, certificates: Certificates, timeout: float = 15.0) -> Iterator[TlsRedis]:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is needed (Debian: redis-server)")
        port = free_port()
        command = [
            binary, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--tls-cert-file", str(certificates.server_certificate),
            "--tls-key-file", str(certificates.server_key), "--tls-ca-cert-file", str(certificates.ca),
            "--tls-auth-clients", "no",
        ]  # fmt: skip
        process = subprocess.Popen(dies_with_parent(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + timeout
            while not port_answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server with TLS did not start on port {port}")
                time.sleep(0.05)
            yield cls(port, process)
        finally:
            process.kill()
            process.wait()

    def url(self, host: str = "127.0.0.1", scheme: str = "rediss", **parameters: str) -> str:
        query = f"?{urlencode(parameters, quote_via=quote, safe='/')}" if parameters else ""
        return f"{scheme}://{host}:{self.port}/0{query}"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certificates"))


@pytest.fixture(scope="module")
def tls_postgres(certificates: Certificates) -> Iterator[TlsPostgres]:
    with TlsPostgres.started(certificates) as server:
        yield server


@pytest.fixture(scope="module")
def tls_redis(certificates: Certificates) -> Iterator[TlsRedis]:
    with TlsRedis.started(certificates) as server:
        yield server
