rule plot_figures:
    input:
        **figure_inputs(),
    output:
        **figure_outputs(),
    log:
        "logs/plot_figures.log",
    benchmark:
        "benchmarks/plot_figures/job.tsv"
    conda:
        CONDA_ENV
    params:
        arguments=figure_arguments,
        # The figures draw every method in the colour its file declares.
        code=stage_code("figures", *method_names()),
    shell:
        "costfs figures {params.arguments} 2> {log}"
