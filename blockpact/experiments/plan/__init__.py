"""The plan wing: what a run is before it starts (run_plan: `RunPlan`, its conditions and units), the scenario
files that describe one, the checks a plan passes (plan_checks, live_options, preflight, institution) and the run
defaults (run.toml). It imports no other wing."""
