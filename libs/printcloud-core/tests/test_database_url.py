"""The database URL as operators write it (libpq's form) becomes what asyncpg reads, or a refusal
that says what is wrong and never shows a password."""

from __future__ import annotations

import pytest

from printcloud.core.db.url import DatabaseUrl
from printcloud.core.settings import CommonSettings

MANAGED = (
    "postgresql://printcloud:s3cret@pg.example.net:5432/printcloud"
    "?sslmode=verify-full&sslrootcert=/etc/printcloud/tls/postgresql/ca.crt"
)


def test_libpq_parameters_reach_asyncpg_as_written() -> None:
    target = DatabaseUrl.parse(MANAGED)
    assert target.dsn == MANAGED
    assert target.database == "printcloud"
    assert target.parameters == {"sslmode": "verify-full", "sslrootcert": "/etc/printcloud/tls/postgresql/ca.crt"}
    assert target.files() == {"sslrootcert": "/etc/printcloud/tls/postgresql/ca.crt"}
    assert (target.system_roots, target.timeout) == (False, None)


@pytest.mark.parametrize("scheme", ["postgres", "postgresql+asyncpg"])
def test_other_spellings_of_the_scheme_are_read_as_postgresql(scheme: str) -> None:
    assert DatabaseUrl.parse(f"{scheme}://u@h/db").dsn == "postgresql://u@h/db"


def test_sqlalchemys_ssl_spelling_is_libpqs_sslmode() -> None:
    # asyncpg would send `ssl` to the server as a setting, which it refuses.
    assert DatabaseUrl.parse("postgresql://u@h/db?ssl=require").parameters == {"sslmode": "require"}


def test_system_roots_and_the_connect_timeout_become_asyncpgs_arguments() -> None:
    target = DatabaseUrl.parse("postgresql://u@h/db?sslrootcert=system&connect_timeout=7")
    assert target.system_roots
    assert target.timeout == 7
    # libpq: the system's roots mean verify-full.
    assert target.parameters == {"sslmode": "verify-full"}
    assert DatabaseUrl.parse("postgresql://u@h/db?connect_timeout=0").timeout is None


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("mysql://u@h/db", "must be a PostgreSQL URL"),
        ("postgresql://u@h/db?sslmode=requre", "sslmode must be one of disable, allow, prefer, require, verify-ca"),
        ("postgresql://u@h/db?sslrootcrt=/ca.crt", "unknown TLS parameter sslrootcrt"),
        ("postgresql://u@h/db?sslmode=require&sslmode=disable", "names the parameter sslmode twice"),
        ("postgresql://u@h/db?ssl=require&sslmode=disable", "names both ssl and sslmode"),
        ("postgresql://u@h/db?sslrootcert=", "names the parameter sslrootcert with no value"),
        ("postgresql://u@h/db?sslrootcert=system&sslmode=require", "sslrootcert=system needs sslmode=verify-full"),
        ("postgresql://u@h/db?connect_timeout=soon", "connect_timeout must be a number of seconds"),
    ],
)
def test_a_url_that_cannot_work_is_refused_saying_why(url: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=refusal):
        DatabaseUrl.parse(url)


def test_passwords_are_hidden_wherever_the_url_holds_them() -> None:
    target = DatabaseUrl.parse(
        "postgresql://printcloud:s3cret@pg.example.net/db?password=other&sslcert=/c.crt&sslkey=/c.key&sslpassword=keypw"
    )
    shown = target.redacted()
    assert "s3cret" not in shown and "other" not in shown and "keypw" not in shown
    assert shown == (
        "postgresql://printcloud:***@pg.example.net/db?password=***&sslcert=/c.crt&sslkey=/c.key&sslpassword=***"
    )
    # The dev stack's embedded server: no password to hide, and a socket directory.
    embedded = "postgresql://postgres:@/printcloud?host=/work/.dev/pgdata"
    assert DatabaseUrl.parse(embedded).redacted() == embedded


def test_several_hosts_are_kept_for_asyncpg() -> None:
    url = "postgresql://u:p%40ss@pg-1:5432,pg-2:5432/db?target_session_attrs=read-write&sslmode=verify-full"
    target = DatabaseUrl.parse(url)
    assert (target.dsn, target.database) == (url, "db")
    assert target.redacted() == url.replace("p%40ss", "***")


def test_another_database_keeps_the_server_user_and_tls_settings() -> None:
    other = DatabaseUrl.parse(MANAGED.replace("/printcloud?", "/postgres?")).with_database("printcloud_e2e_1")
    assert other.text == MANAGED.replace("/printcloud?", "/printcloud_e2e_1?")
    assert other.database == "printcloud_e2e_1"


def test_a_process_refuses_to_start_on_a_url_that_cannot_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRINTCLOUD_DATABASE_URL", "postgresql://u:s3cret@h/db?sslmode=verify_full")
    with pytest.raises(SystemExit) as refused:
        CommonSettings.load()
    assert str(refused.value).startswith("refusing to start: PRINTCLOUD_DATABASE_URL: sslmode must be one of")
    assert "s3cret" not in str(refused.value)
