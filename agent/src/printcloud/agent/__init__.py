"""The PrintCloud agent: connects a computer's printers to PrintCloud."""

from importlib import metadata

# The release the agent was built from (the repository's VERSION file: `1.0.0`, or `1.1.0-dev`
# between releases); reported in `hello` as `agentVersion`.
AGENT_VERSION = metadata.version("printcloud-agent")
