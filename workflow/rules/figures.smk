rule plot_figures:
    input:
        **figure_inputs(),
    output:
        **figure_outputs(),
    params:
        arguments=figure_arguments,
        code=code_version("figures.py"),
    conda:
        CONDA_ENV
    log:
        "logs/plot_figures.log",
    shell:
        "costfs figures {params.arguments} 2> {log}"
