"""The PrintCloud agent: connects a computer's printers to PrintCloud."""

from importlib import metadata, resources


def _release() -> str:
    try:
        return metadata.version("printcloud-agent")
    except metadata.PackageNotFoundError:
        # The single-file agent carries its sources without a package's metadata, so its build
        # writes the release beside them (agent/packaging/build.py).
        return resources.files(__name__).joinpath("RELEASE").read_text(encoding="utf-8").strip()


# The release the agent was built from (the repository's VERSION file: `1.0.0`, or `1.1.0-dev`
# between releases); reported in `hello` as `agentVersion`.
AGENT_VERSION = _release()
