"""Where `pcloud login` keeps the address and the key: a JSON file only its owner can read."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from printcloud_sdk._request import API_KEY_VARIABLE, BASE_URL_VARIABLE

CONFIG_VARIABLE = "PRINTCLOUD_CONFIG"


def config_path() -> Path:
    """`$PRINTCLOUD_CONFIG`, else `$XDG_CONFIG_HOME/printcloud/config.json` (`~/.config` by default)."""
    explicit = os.environ.get(CONFIG_VARIABLE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "printcloud" / "config.json"


@dataclass(frozen=True)
class Credentials:
    base_url: str | None
    api_key: str | None

    def __repr__(self) -> str:
        return f"Credentials(base_url={self.base_url!r}, api_key={'...' if self.api_key else None})"


def load() -> Credentials:
    """The saved credentials, each overridden by `PRINTCLOUD_BASE_URL` or `PRINTCLOUD_API_KEY`."""
    saved: dict[str, str] = {}
    path = config_path()
    if path.exists():
        loaded = json.loads(path.read_text())
        saved = loaded if isinstance(loaded, dict) else {}
    return Credentials(
        base_url=os.environ.get(BASE_URL_VARIABLE) or saved.get("base_url"),
        api_key=os.environ.get(API_KEY_VARIABLE) or saved.get("api_key"),
    )


def save(base_url: str, api_key: str) -> Path:
    """Writes the file with mode 0600 (its folder 0700) before a byte of the key is in it."""
    path = config_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    # A file that existed with wider permissions is narrowed before it is written.
    os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump({"base_url": base_url, "api_key": api_key}, file)
    return path


def forget() -> bool:
    path = config_path()
    if path.exists():
        path.unlink()
        return True
    return False
