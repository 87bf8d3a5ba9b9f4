"""`python -m blockpact.cli ...`: the `blockpact` command."""

import sys

from blockpact.cli import main

sys.exit(main())
