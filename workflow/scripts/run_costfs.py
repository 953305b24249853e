"""Runs a `costfs` subcommand inside the job's Python with the argument list the rule built.

For the rules whose input lists are far longer than a command line may be at paper scale: the
kernel caps one argument, such as the command string that `bash -c` runs, at 128 KB, and
46,000 paths take about 2.8 MB. The subcommand logs to the rule's log file.
"""

import sys

from costfs.cli import main

with open(snakemake.log[0], "w") as log:  # noqa: F821 (snakemake is the script's job)
    sys.stderr = log
    status = main([snakemake.params.subcommand, *map(str, snakemake.params.arguments)])  # noqa: F821
sys.exit(status)
