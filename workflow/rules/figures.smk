# One job per figure output (per cell of one split into cells), each waiting
# only for the tables it is drawn from: the figures are drawn in parallel, and a figure whose
# tables did not change is not drawn again.
for figure in STUDY.figure_outputs():

    rule:
        name:
            f"plot_{figure.name}"
        input:
            **figure_inputs(figure),
        output:
            **{figure.name: figure_output(figure)},
        log:
            f"logs/plot_figures/{figure_job(figure)}.log",
        benchmark:
            f"benchmarks/plot_figures/{figure_job(figure)}.tsv"
        conda:
            CONDA_ENV
        params:
            arguments=figure_arguments,
            # A figure of results draws every method in the colour its file declares.
            code=stage_code("figures", *(method_names() if figure.draws_methods else ())),
        shell:
            "costfs figures {params.arguments} 2> {log}"
