"""The agent's configuration file: where it connects and the credential it proves itself with.

The credential is a secret, so the file is readable by its owner only (0600, directory 0700).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

CONFIG_ENV = "PRINTCLOUD_AGENT_CONFIG"


def default_config_path() -> Path:
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured)
    return Path.home() / ".config" / "printcloud-agent" / "agent.json"


@dataclass(frozen=True)
class AgentConfig:
    server_url: str
    agent_gateway_url: str
    computer_id: str
    credential: str

    def to_json(self) -> dict[str, str]:
        return {
            "serverUrl": self.server_url,
            "agentGatewayUrl": self.agent_gateway_url,
            "computerId": self.computer_id,
            "credential": self.credential,
        }

    def public_json(self) -> dict[str, str]:
        """Everything but the credential, for display."""
        return {k: v for k, v in self.to_json().items() if k != "credential"}

    @classmethod
    def from_json(cls, value: dict[str, str]) -> AgentConfig:
        return cls(
            server_url=value["serverUrl"],
            agent_gateway_url=value["agentGatewayUrl"],
            computer_id=value["computerId"],
            credential=value["credential"],
        )


def save_config(config: AgentConfig, path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    # Created with 0600 from the start, so the credential is never briefly world-readable.
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(config.to_json(), handle, indent=2)
    os.chmod(tmp, 0o600)  # O_CREAT's mode does not apply to a file that already existed
    os.replace(tmp, path)


def load_config(path: Path) -> AgentConfig:
    return AgentConfig.from_json(json.loads(path.read_text()))
