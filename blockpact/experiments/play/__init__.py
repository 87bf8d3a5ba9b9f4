"""The play wing: the Runner (runner) that plays a plan into a run directory, a unit's protocol (protocol), who plays
(participants: scripted, LLM and human players), an episode (episode_engine), judging, an institution's meetings,
the task's prompts and organization runs (org/). It imports the plan, log and outputs wings."""
