# The workflow lives in workflow/Snakefile (where the Snakemake workflow catalog looks for it);
# this file lets `snakemake` find it from the repository root as well.


include: "workflow/Snakefile"


# An included file cannot name the default target, so this one does: the study of rule all.
rule run_study:
    default_target: True
    input:
        rules.all.input,
