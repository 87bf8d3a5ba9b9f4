"""The log wing: a run's event log (run_events; its schema is EVENTS.md), the run directory (rundir), the typed
records rebuilt from the log alone (records) and where an interrupted run stands (resume). It imports the plan wing."""
