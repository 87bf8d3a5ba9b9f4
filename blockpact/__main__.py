"""`python -m blockpact`: the same command line as the `blockpact` console script."""

import sys

from blockpact.cli import main

sys.exit(main())
