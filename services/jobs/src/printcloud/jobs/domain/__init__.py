"""Pure rules of print jobs: the job and its state machine, timers, events, print options and
submission limits. No I/O: the current time comes in as an argument."""
