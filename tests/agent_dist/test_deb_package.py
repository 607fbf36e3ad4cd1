"""The .deb of `make agent-dist`, read with dpkg-deb: its control fields, its files, and its
maintainer scripts, parsed by `sh -n` and run against stand-ins for the system commands they call,
so what each dpkg step (configure, remove, purge, upgrade) does is checked command by command.

Installing the package for real needs a machine of its own with systemd as PID 1; these tests
cannot, so they do not start the unit or create the user."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.agent_dist import AgentDist

SYSTEMD_RUNNING = Path("/run/systemd/system").is_dir()
UNIT = "printcloud-agent.service"
STUBBED = (
    "getent", "useradd", "install", "deb-systemd-helper", "deb-systemd-invoke", "systemctl", "rm", "id", "runuser",
    "python3",
)  # fmt: skip


def _dpkg_deb(*args: str) -> str:
    return subprocess.run(["dpkg-deb", *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def unpacked(dist: AgentDist, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("deb")
    subprocess.run(["dpkg-deb", "--raw-extract", str(dist.deb), str(folder)], check=True)
    return folder


def test_control_names_the_package_its_version_and_what_it_needs(dist: AgentDist) -> None:
    release = Path("VERSION").read_text().strip()
    # The release's version as Debian orders it: a development version before its release.
    version = release.replace("-", "~")
    base = release.split("-")[0]
    assert subprocess.run(["dpkg", "--compare-versions", version, "le", base], check=False).returncode == 0
    fields = dict(
        line.split(": ", 1) for line in _dpkg_deb("--field", str(dist.deb)).splitlines() if not line.startswith(" ")
    )
    assert fields["Package"] == "printcloud-agent" and fields["Version"] == version
    assert fields["Architecture"] == "all"
    assert "python3 (>= 3.11)" in fields["Depends"] and "cups" in fields["Recommends"]
    assert dist.deb.name == f"printcloud-agent_{version}_all.deb"
    info = _dpkg_deb("--info", str(dist.deb))
    for script in ("postinst", "prerm", "postrm"):
        assert re.search(rf"^\s+\d+ bytes,\s+\d+ lines\s+\*\s+{script}\s+#!/bin/sh$", info, re.MULTILINE), info


def test_the_package_holds_the_single_file_the_command_and_the_unit_owned_by_root(dist: AgentDist) -> None:
    files = {}
    for line in _dpkg_deb("--contents", str(dist.deb)).splitlines():
        mode, owner, size, _, _, path = line.split(maxsplit=5)
        files[path.removeprefix(".")] = (mode, owner, int(size))
    assert {path for path, (mode, _, _) in files.items() if not mode.startswith("d")} == {
        "/usr/lib/printcloud-agent/printcloud-agent.pex",
        "/usr/bin/printcloud-agent",
        "/lib/systemd/system/printcloud-agent.service",
        "/usr/share/doc/printcloud-agent/INSTALL.md",
    }
    assert {owner for _, owner, _ in files.values()} == {"root/root"}
    assert files["/usr/lib/printcloud-agent/printcloud-agent.pex"][:2] == ("-rwxr-xr-x", "root/root")
    assert files["/usr/lib/printcloud-agent/printcloud-agent.pex"][2] == dist.pex.stat().st_size
    assert files["/usr/bin/printcloud-agent"][0] == "-rwxr-xr-x"
    assert files["/lib/systemd/system/printcloud-agent.service"][0] == "-rw-r--r--"


def test_the_unit_runs_the_packaged_command_as_the_user_and_in_the_folders_postinst_makes(unpacked: Path) -> None:
    unit = (unpacked / "lib/systemd/system" / UNIT).read_text()
    settings = [line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.startswith("#")]
    values: dict[str, list[str]] = {}
    for name, value in settings:
        values.setdefault(name, []).append(value)
    command = values["ExecStart"][0].split()
    assert (unpacked / command[0].lstrip("/")).exists() and command[1:] == ["run", "--backend", "cups"]
    assert values["User"] == ["printcloud-agent"] and values["Group"] == ["lp"]
    assert set(values["Environment"]) == {
        "PRINTCLOUD_AGENT_CONFIG=/var/lib/printcloud-agent/agent.json",
        "PEX_ROOT=/var/cache/printcloud-agent/pex",
    }
    assert values["ConditionPathExists"] == ["/var/lib/printcloud-agent/agent.json"]
    assert values["StateDirectory"] == values["CacheDirectory"] == ["printcloud-agent"]
    assert values["WantedBy"] == ["multi-user.target"]
    postinst = (unpacked / "DEBIAN" / "postinst").read_text()
    assert "/var/lib/printcloud-agent /var/cache/printcloud-agent" in postinst


@pytest.mark.parametrize("script", ["DEBIAN/postinst", "DEBIAN/prerm", "DEBIAN/postrm", "usr/bin/printcloud-agent"])
def test_every_script_parses_as_posix_sh_and_is_executable(unpacked: Path, script: str) -> None:
    path = unpacked / script
    assert path.read_text().startswith("#!/bin/sh\n")
    assert os.access(path, os.X_OK)
    parsed = subprocess.run(["sh", "-n", str(path)], capture_output=True, text=True, check=False)
    assert parsed.returncode == 0, parsed.stderr


class Stand_ins:
    """A PATH of commands that only record how they were called (and answer as `answers` say)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "calls.log"
        for name in STUBBED:
            stub = folder / name
            stub.write_text(
                "#!/bin/sh\n"
                f'echo "{name} $*" >> "{self.log}"\n'
                f'case "{name} $*" in\n'
                '  "getent passwd printcloud-agent") exit "${USER_MISSING:-0}" ;;\n'
                '  "deb-systemd-helper --quiet was-enabled printcloud-agent.service") exit "${WAS_DISABLED:-0}" ;;\n'
                '  "id -un") echo "${AS_USER:-root}" ;;\n'
                "esac\n"
                "exit 0\n"
            )
            stub.chmod(0o755)

    def run(self, script: Path, *args: str, **answers: str) -> list[str]:
        self.log.write_text("")
        env = {"PATH": str(self.folder), **answers}
        subprocess.run(["/bin/sh", str(script), *args], env=env, check=True, capture_output=True, timeout=30)
        return self.log.read_text().splitlines()


@pytest.fixture
def stand_ins(tmp_path: Path) -> Stand_ins:
    return Stand_ins(tmp_path)


def _systemd(*calls: str) -> list[str]:
    return list(calls) if SYSTEMD_RUNNING else []


def test_a_first_configure_makes_the_user_and_private_folders_and_enables_the_unit(
    unpacked: Path, stand_ins: Stand_ins
) -> None:
    calls = stand_ins.run(unpacked / "DEBIAN/postinst", "configure", USER_MISSING="2")
    assert calls == [
        "getent passwd printcloud-agent",
        "useradd --system --gid lp --home-dir /var/lib/printcloud-agent --no-create-home --shell /usr/sbin/nologin "
        "--comment PrintCloud agent printcloud-agent",
        "install -d -o printcloud-agent -g lp -m 0700 /var/lib/printcloud-agent /var/cache/printcloud-agent",
        f"deb-systemd-helper unmask {UNIT}",
        f"deb-systemd-helper --quiet was-enabled {UNIT}",
        f"deb-systemd-helper enable {UNIT}",
        *_systemd("systemctl --system daemon-reload", f"deb-systemd-invoke restart {UNIT}"),
    ]


def test_an_upgrade_keeps_the_user_and_a_unit_the_administrator_disabled(unpacked: Path, stand_ins: Stand_ins) -> None:
    calls = stand_ins.run(unpacked / "DEBIAN/postinst", "configure", "0.0.9", WAS_DISABLED="1")
    assert not any(call.startswith("useradd") for call in calls)
    assert f"deb-systemd-helper update-state {UNIT}" in calls
    assert f"deb-systemd-helper enable {UNIT}" not in calls
    assert stand_ins.run(unpacked / "DEBIAN/prerm", "upgrade", "0.1.0") == []


def test_remove_stops_and_masks_the_unit_and_keeps_the_enrolment(unpacked: Path, stand_ins: Stand_ins) -> None:
    assert stand_ins.run(unpacked / "DEBIAN/prerm", "remove") == _systemd(f"deb-systemd-invoke stop {UNIT}")
    calls = stand_ins.run(unpacked / "DEBIAN/postrm", "remove")
    assert calls == [*_systemd("systemctl --system daemon-reload"), f"deb-systemd-helper mask {UNIT}"]
    assert not any(call.startswith("rm ") for call in calls)


def test_purge_forgets_the_unit_and_removes_the_credential_ledger_and_cache(
    unpacked: Path, stand_ins: Stand_ins
) -> None:
    assert stand_ins.run(unpacked / "DEBIAN/postrm", "purge") == [
        f"deb-systemd-helper purge {UNIT}",
        f"deb-systemd-helper unmask {UNIT}",
        "rm -rf /var/lib/printcloud-agent /var/cache/printcloud-agent",
    ]


def test_the_command_runs_the_single_file_as_the_agents_user_with_the_system_configuration(
    unpacked: Path, stand_ins: Stand_ins
) -> None:
    command = unpacked / "usr/bin/printcloud-agent"
    as_root = stand_ins.run(command, "enroll", "--code", "-")
    assert as_root == [
        "id -un",
        "runuser -u printcloud-agent -g lp -- env PRINTCLOUD_AGENT_CONFIG=/var/lib/printcloud-agent/agent.json "
        "PEX_ROOT=/var/cache/printcloud-agent/pex python3 /usr/lib/printcloud-agent/printcloud-agent.pex "
        "enroll --code -",
    ]
    assert stand_ins.run(command, "status", AS_USER="alice")[1] == (
        "python3 /usr/lib/printcloud-agent/printcloud-agent.pex status"
    )
