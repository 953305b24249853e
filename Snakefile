from snakemake.utils import min_version

min_version("8.20")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/select.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/aggregate.smk"


rule all:
    input:
        final_outputs(),
