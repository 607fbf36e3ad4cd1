"""Pure rules of print jobs: the state machine, print options and submission limits. No I/O."""
