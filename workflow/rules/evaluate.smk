rule evaluate_selection:
    input:
        unpack(evaluation_inputs),
        costs="results/costs/{problem}.npz",
    output:
        "results/evaluation/{method}/{problem}/reps~{block}.parquet",
    log:
        "logs/evaluate_selection/{method}/{problem}/reps~{block}.log",
    benchmark:
        "benchmarks/evaluate_selection/{method}/{problem}/reps~{block}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        problem=evaluation_parameters,
        n_trees=config["evaluation"]["n_trees"],
        metrics=" ".join(f"--metrics {metric}" for metric in config["evaluation"]["metrics"]),
        engine=config["engine"],
        # The method's own hook (e.g. BudgetRF's ensemble on the test rows) runs here too.
        code=lambda wildcards: stage_code("evaluate", wildcards.method),
    shell:
        "costfs evaluate --study-seed {params.seed} --method {wildcards.method}"
        " --problem {wildcards.problem} {params.problem} --train {input.training_data}"
        " --test {input.test_data} --costs {input.costs} --n-trees {params.n_trees}"
        " {params.metrics} --engine {params.engine} --threads {threads} --out {output} 2> {log}"
