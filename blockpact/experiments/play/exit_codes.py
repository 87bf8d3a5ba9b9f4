"""Exit statuses of `blockpact run`, `blockpact resume` (and every command's errors), as README documents.

0   every unit completed (condition-seed unit: contract, then its episodes)
1   the command could not start: bad input or setup (world file, options, LLM endpoint check), with a message
2   command-line usage error (argparse)
3   the run ended but some units failed (cause on stderr, in metrics.json and the report) or never ran
4   `org run` only: every seed ran, but the organization did not accomplish its task in some of them
130 interrupted by SIGINT (Ctrl-C); 143 terminated by SIGTERM: the log is valid, the report covers what
    finished, `blockpact resume DIR` finishes the run
"""

OK = 0
ERROR = 1
USAGE = 2
UNITS_FAILED = 3
TASK_NOT_DONE = 4
SIGINT = 130
SIGTERM = 143
