rule plot_figures:
    input:
        **figure_inputs(),
    output:
        **figure_outputs(),
    log:
        "logs/plot_figures.log",
    conda:
        CONDA_ENV
    params:
        arguments=figure_arguments,
        # The figures draw every method in the colour its file declares.
        code=code_version("commands/figures.py", *(f"methods/{m}.py" for m in method_names())),
    shell:
        "costfs figures {params.arguments} 2> {log}"
