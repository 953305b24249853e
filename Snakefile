from snakemake.utils import min_version

min_version("8.20")


# A study config given with --configfile replaces the default study instead of being merged
# into it, so a smaller study does not inherit the default's data sets or methods.
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/select.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/figures.smk"


rule all:
    input:
        final_outputs(),
