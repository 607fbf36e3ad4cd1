"""The dispatcher's one loop: the trigger of the job timers."""
