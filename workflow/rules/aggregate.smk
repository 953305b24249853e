rule aggregate_results:
    input:
        evaluations=evaluations(),
        benchmarks=benchmarks(),
    output:
        runs="results/runs.parquet",
        summary="results/summary.parquet",
        timings="results/timings.parquet",
    params:
        strategies=" ".join(config["strategies"]),
        code=code_version("aggregation.py"),
    conda:
        CONDA_ENV
    log:
        "logs/aggregate_results.log",
    shell:
        "costfs aggregate --evaluations {input.evaluations} --benchmarks {input.benchmarks}"
        " --strategies {params.strategies} --out-runs {output.runs}"
        " --out-summary {output.summary} --out-timings {output.timings} 2> {log}"
