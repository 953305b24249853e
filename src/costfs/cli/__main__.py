"""`python -m costfs.cli`: the `costfs` command, for a Python whose scripts are not on PATH."""

import sys

from costfs.cli import main

sys.exit(main())
