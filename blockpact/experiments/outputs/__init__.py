"""The outputs wing: everything derived from a run's log: metrics.json (metrics_file and the sections it gathers),
figures (plots, SVG and PDF), tables, replays and report.html, all written by run_outputs. It imports the plan and
log wings."""
