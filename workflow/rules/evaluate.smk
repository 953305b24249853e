rule evaluate_selection:
    input:
        selection="results/selection/{method}/{problem}/rep~{rep}.parquet",
        artifacts="results/selection/{method}/{problem}/rep~{rep}.artifacts.npz",
        training_data=lambda wildcards: STUDY.training_path(
            PROBLEMS[wildcards.problem].dataset, wildcards.rep
        ),
        test_data=lambda wildcards: STUDY.test_path(wildcards.problem, wildcards.rep),
        costs="results/costs/{problem}.npz",
    output:
        "results/evaluation/{method}/{problem}/rep~{rep}.parquet",
    log:
        "logs/evaluate_selection/{method}/{problem}/rep~{rep}.log",
    benchmark:
        "benchmarks/evaluate_selection/{method}/{problem}/rep~{rep}.tsv"
    conda:
        CONDA_ENV
    params:
        seed=config["seed"],
        dataset=lambda wildcards: PROBLEMS[wildcards.problem].dataset,
        kind=lambda wildcards: PROBLEMS[wildcards.problem].kind,
        n_trees=config["evaluation"]["n_trees"],
        engine=config["engine"],
        # The method's own hook (e.g. BudgetRF's ensemble on the test rows) runs here too.
        code=lambda wildcards: method_code("evaluate", wildcards.method),
    shell:
        "costfs evaluate --study-seed {params.seed} --method {wildcards.method}"
        " --problem {wildcards.problem} --kind {params.kind} --dataset {params.dataset}"
        " --rep {wildcards.rep} --selection {input.selection}"
        " --artifacts {input.artifacts} --train {input.training_data}"
        " --test {input.test_data} --costs {input.costs} --n-trees {params.n_trees}"
        " --engine {params.engine} --threads {threads} --out {output} 2> {log}"
